import type { ContractSetUp } from './contractSource.js';
import { describeOrdersContract } from './ordersContract.js';
import { describeRecordsContract } from './recordsContract.js';

export * from './contractData.js';
export type { ContractSetUp, ContractSource } from './contractSource.js';
export { describeOrderImportContract } from './ordersContract.js';

/**
 * The contract every ERP adapter passes, one call per adapter and configuration: records read
 * with the same values and rejects in source order, reads finished by commit according to the
 * adapter's capabilities, and the order side (idempotent import, events from a checkpoint,
 * ERP-origin orders told once), each checked by its effect and across instances.
 *
 *   describeErpAdapterContract('sql adapter, postgres', async () => {
 *     const schema = await createSchema();
 *     return { seed: (data) => insertRows(schema, data), open: () => openSqlAdapter(schema), ... };
 *   });
 */
export function describeErpAdapterContract(name: string, setUp: ContractSetUp): void {
  describeRecordsContract(name, setUp);
  describeOrdersContract(name, setUp);
}
