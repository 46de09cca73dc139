import { describe, expect, it } from 'vitest';
import type { ErpRow } from '../../../src/domain/records.js';
import { FileErpAdapter } from '../../../src/erp/file/FileErpAdapter.js';
import { silentLogger } from '../../../src/logger.js';
import { fileConfig } from '../../support/writeDropFolder.js';

async function collect<T>(rows: AsyncIterable<ErpRow<T>>): Promise<ErpRow<T>[]> {
  const out: ErpRow<T>[] = [];
  for await (const row of rows) out.push(row);
  return out;
}

describe('sample drop folder (config/sample)', () => {
  it('holds demo SKUs and exactly the documented bad rows', async () => {
    const adapter = new FileErpAdapter(fileConfig('config/sample', { stableMs: 0 }), silentLogger());
    const stock = await collect(adapter.stock());
    const prices = await collect(adapter.prices());
    const rejects = [...stock, ...prices].flatMap((r) =>
      r.ok ? [] : [`${r.source.file}:${r.source.line} ${r.reason}`],
    );
    expect(rejects).toEqual([
      'stock.csv:38 duplicate of line 2 (the first occurrence is used)',
      'stock.csv:39 quantity must be at least 0, got -4',
      'prices.csv:37 vat_rate must be between 0 and 100, got 120',
    ]);
    const skus = [...stock, ...prices].flatMap((r) => (r.ok ? [r.record.sku] : []));
    expect(skus.every((sku) => /^DEMO-\d{4}$/.test(sku))).toBe(true);
    expect(stock.filter((r) => r.ok)).toHaveLength(36);
    expect(stock.some((r) => r.ok && r.record.variantSku === 'DEMO-0006-S')).toBe(true);
  });
});
