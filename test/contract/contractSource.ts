import type { RecordSource } from '../../src/domain/records.js';
import type { ErpAdapter } from '../../src/erp/ErpAdapter.js';
import type { ErpOrderLocation } from '../../src/erp/ErpOrderLocation.js';
import type { ContractKind, ContractSeed } from './contractData.js';

/**
 * An ERP source prepared for the contract (a drop folder, a database schema, an RPC test
 * server), empty at first. The suite seeds it, opens adapters over it and looks at the effects
 * of their calls through it.
 */
export interface ContractSource {
  /** The ERP now holds these (a new export, changed tables); kinds left out stay as they are. */
  seed(data: Partial<ContractSeed>): Promise<void>;
  /** A new adapter over this source, opened. Called more than once: two processes over one ERP. */
  open(): Promise<ErpAdapter>;
  /** Where row `index` of a record kind lies (file and line), when the adapter can say. */
  locate?: (kind: ContractKind, index: number) => RecordSource;
  /** The platform order id the ERP was told for one of its orders (`recordOutgoingOrder`), or null. */
  toldPlatformOrder(sourceOrderId: string): Promise<number | null>;
  /**
   * What this ERP's `locateOrder` says, besides the reference, of platform order `platformOrderId`
   * imported as `erpRef` with one change delivered (its file, row, sale): checked with toMatchObject.
   */
  expectedLocation(platformOrderId: number, erpRef: string): Partial<ErpOrderLocation>;
  /** Removes the source (folder, schema). Adapters opened by the suite are closed before. */
  cleanup(): Promise<void> | void;
}

/** Prepares a fresh, empty source; called once per test. */
export type ContractSetUp = () => Promise<ContractSource>;

/** Runs `body` over a fresh source; closes every adapter it opened, then removes the source. */
export async function withSource(
  setUp: ContractSetUp,
  seed: Partial<ContractSeed>,
  body: (source: ContractSource) => Promise<void>,
): Promise<void> {
  const source = await setUp();
  const opened: ErpAdapter[] = [];
  try {
    await source.seed(seed);
    await body({
      ...source,
      seed: (data) => source.seed(data),
      open: async () => {
        const adapter = await source.open();
        opened.push(adapter);
        return adapter;
      },
      toldPlatformOrder: (id) => source.toldPlatformOrder(id),
      expectedLocation: (id, erpRef) => source.expectedLocation(id, erpRef),
      cleanup: () => source.cleanup(),
    });
  } finally {
    for (const adapter of opened) await adapter.close();
    await source.cleanup();
  }
}

export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}
