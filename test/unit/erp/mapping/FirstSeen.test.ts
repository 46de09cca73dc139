import { describe, expect, it } from 'vitest';
import type { StockRecord } from '../../../../src/domain/records.js';
import { ErpRowMapper } from '../../../../src/erp/mapping/ErpRowMapper.js';
import { FirstSeen } from '../../../../src/erp/mapping/FirstSeen.js';

describe('FirstSeen', () => {
  it('answers like a Map of first places over many keys, through every growth of its tables', () => {
    const seen = new FirstSeen();
    const reference = new Map<string, number | string>();
    // Keys that share prefixes, differ only in length, are empty, or are not ASCII.
    const key = (n: number): string =>
      n % 7 === 0 ? `é-${n % 5000}-ü` : n % 11 === 0 ? `K${'0'.repeat(n % 13)}` : `SKU-${n % 40_000}`;
    for (let n = 0; n < 60_000; n++) {
      const at = n % 97 === 0 ? `orders query row ${n}` : n + 2;
      const k = n === 5 ? '' : key(n);
      const want = reference.get(k);
      expect(seen.firstOrAdd(k, at), `key ${k} at ${n}`).toBe(want);
      if (want === undefined) reference.set(k, at);
    }
    expect(seen.size).toBe(reference.size);
  });

  it('tells apart keys that are prefixes of each other or differ only in case', () => {
    const seen = new FirstSeen();
    expect(seen.firstOrAdd('A', 1)).toBeUndefined();
    expect(seen.firstOrAdd('AA', 2)).toBeUndefined();
    expect(seen.firstOrAdd('a', 3)).toBeUndefined();
    expect(seen.firstOrAdd('AA', 4)).toBe(2);
    expect(seen.firstOrAdd('A', 5)).toBe(1);
  });

  it('keeps a place that is not a line number as it was given', () => {
    const seen = new FirstSeen();
    expect(seen.firstOrAdd('X', 'stock query')).toBeUndefined();
    expect(seen.firstOrAdd('Y', 2 ** 40)).toBeUndefined();
    expect(seen.firstOrAdd('X', 9)).toBe('stock query');
    expect(seen.firstOrAdd('Y', 9)).toBe('1099511627776');
  });
});

describe('ErpRowMapper duplicate check', () => {
  it('names both lines of a duplicate, the first far back in a long read', () => {
    const mapper = new ErpRowMapper<StockRecord>('stock', { decimalComma: false });
    const rows = [];
    for (let line = 2; line < 200_002; line++)
      rows.push(mapper.map({ sku: `SKU-${line}`, quantity: '1' }, { file: 'stock.csv', line }));
    const duplicate = mapper.map({ sku: 'SKU-7', quantity: '3' }, { file: 'stock.csv', line: 200_002 });
    expect(rows.every((row) => row.ok)).toBe(true);
    expect(duplicate).toEqual({
      ok: false,
      key: 'SKU-7',
      reason: 'duplicate of line 7 (the first occurrence is used)',
      source: { file: 'stock.csv', line: 200_002 },
    });
  });

  it('keys a variant apart from its product, and names a source without a line by its row', () => {
    const mapper = new ErpRowMapper<StockRecord>('stock', { decimalComma: false });
    expect(mapper.map({ sku: 'P', quantity: '1' }, { row: 'row P' }).ok).toBe(true);
    expect(mapper.map({ sku: 'P', variant_sku: 'V', quantity: '1' }, { row: 'row P/V' }).ok).toBe(true);
    expect(mapper.map({ sku: 'P', variant_sku: 'V', quantity: '2' }, { row: 'row P/V again' })).toMatchObject(
      {
        ok: false,
        key: 'P/V',
        reason: 'duplicate of row P/V (the first occurrence is used)',
        source: { row: 'row P/V again' },
      },
    );
  });
});
