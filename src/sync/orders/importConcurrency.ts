import type { Config } from '../../config.js';
import type { ErpCapabilities } from '../../erp/ErpCapabilities.js';

/** Orders imported at once: `orders.concurrency` when set, else what the ERP adapter takes. */
export function importConcurrency(
  config: Pick<Config, 'orders'>,
  erp: { capabilities: Pick<ErpCapabilities, 'importsAtOnce'> },
): number {
  return config.orders.concurrency ?? erp.capabilities.importsAtOnce;
}
