import { eventRow, outgoingOrderDocument, type ContractSeed } from '../contract/contractData.js';
import type { ContractSource } from '../contract/contractSource.js';
import { MemoryErp, MemoryErpAdapter, type MemoryErpAdapterOptions } from './MemoryErpAdapter.js';

/** A MemoryErp holding the seed, as a database would: one row per contract row. */
export function memorySource(options: MemoryErpAdapterOptions = {}): ContractSource {
  const erp = new MemoryErp();
  return {
    async seed(data: Partial<ContractSeed>) {
      for (const kind of ['stock', 'prices', 'products'] as const) {
        const rows = data[kind];
        if (!rows) continue;
        erp.tables[kind] = rows.map((row) => ({ ...row }));
        erp.consumed[kind] = 0;
      }
      if (data.events) erp.events.splice(0, erp.events.length, ...data.events.map(eventRow));
      if (data.outgoing) {
        erp.outgoing.splice(0, erp.outgoing.length, ...data.outgoing.map(outgoingOrderDocument));
      }
    },
    async open() {
      const adapter = new MemoryErpAdapter(erp, options);
      await adapter.open();
      return adapter;
    },
    toldPlatformOrder: async (sourceOrderId) => erp.recorded.get(sourceOrderId) ?? null,
    expectedLocation: () => ({ facts: { changes: 1 } }),
    cleanup: () => undefined,
  };
}
