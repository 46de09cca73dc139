import type { ErpRow, ProductRecord } from '../../domain/records.js';
import { readTrytonPrices } from './readTrytonPrices.js';
import type { TrytonClient } from './TrytonClient.js';
import { searchReadAll } from './trytonRows.js';

interface Named {
  id: number;
  code: string | null;
  name: string | null;
}

/** Product master data: every salable product with a code, its name and list price. */
export async function* readTrytonProducts(
  rpc: TrytonClient,
  addTaxes: boolean,
): AsyncGenerator<ErpRow<ProductRecord>> {
  const names = new Map<string, string>();
  for await (const page of searchReadAll<Named>(
    rpc,
    'product.product',
    [
      ['salable', '=', true],
      ['code', '!=', null],
    ],
    ['code', 'name'],
  )) {
    for (const product of page) names.set((product.code ?? '').trim(), product.name ?? '');
  }
  for await (const rows of readTrytonPrices(rpc, { overlapSeconds: 0, addTaxes }, null, () => {})) {
    for (const row of rows) {
      if (!row.ok) {
        yield row;
        continue;
      }
      const { sku, price, vatRate } = row.record;
      const record: ProductRecord = { sku, name: names.get(sku) ?? sku, status: 'active' };
      if (price !== undefined) record.price = price;
      if (vatRate !== undefined) record.vatRate = vatRate;
      yield { ok: true, record, source: row.source };
    }
  }
}
