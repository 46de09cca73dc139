import { describe, expect, it } from 'vitest';
import { batches } from '../../../src/sync/frame/batches.js';
import { createPool } from '../../../src/sync/frame/pool.js';
import { notFoundMatcher } from '../../../src/sync/push/pushBatch.js';
import { createSafetyBuffer, globToRegExp, pushedQuantity } from '../../../src/sync/push/safetyBuffer.js';
import {
  priceFingerprint,
  pricesMatch,
  refusedFingerprint,
  stockFingerprint,
  stockMatches,
} from '../../../src/sync/push/fingerprint.js';

describe('batches', () => {
  it('groups a stream into batches of the given size with a short last one', async () => {
    async function* source() {
      for (let i = 0; i < 7; i++) yield i;
    }
    const out: number[][] = [];
    for await (const group of batches(source(), 3)) out.push(group);
    expect(out).toEqual([[0, 1, 2], [3, 4, 5], [6]]);
  });

  it('refuses a size below 1', async () => {
    await expect(batches([1], 0).next()).rejects.toThrow(RangeError);
  });
});

describe('createPool', () => {
  it('never runs more tasks at once than its limit', async () => {
    const pool = createPool(3);
    let active = 0;
    let peak = 0;
    for (let i = 0; i < 20; i++) {
      await pool.submit(async () => {
        active += 1;
        peak = Math.max(peak, active);
        await new Promise((r) => setTimeout(r, 2));
        active -= 1;
      });
    }
    await pool.drain();
    expect(peak).toBe(3);
    expect(active).toBe(0);
  });

  it('stops on the first failure and rethrows it', async () => {
    const pool = createPool(2);
    const boom = new Error('fatal');
    await pool.submit(async () => {
      throw boom;
    });
    await expect(pool.drain()).rejects.toBe(boom);
    await expect(pool.submit(async () => {})).rejects.toBe(boom);
  });
});

describe('safety buffer', () => {
  it('matches globs case-insensitively and literally otherwise', () => {
    expect(globToRegExp('SKU-1*').test('sku-123')).toBe(true);
    expect(globToRegExp('A?C').test('ABC')).toBe(true);
    expect(globToRegExp('A.C').test('ABC')).toBe(false);
  });

  it('uses the first matching rule, on SKU or variant SKU, else the global units', () => {
    const buffer = createSafetyBuffer({
      units: 1,
      rules: [
        { pattern: 'PHONE-*', units: 5 },
        { pattern: '*-RED', units: 2 },
        { pattern: 'PHONE-9', units: 9 },
      ],
    });
    expect(buffer({ sku: 'PHONE-9' })).toBe(5);
    expect(buffer({ sku: 'SHIRT', variantSku: 'SHIRT-RED' })).toBe(2);
    expect(buffer({ sku: 'MUG' })).toBe(1);
  });

  it('subtracts held units and the buffer, never below 0', () => {
    expect(pushedQuantity(10, 3, 2)).toBe(5);
    expect(pushedQuantity(2, 3, 2)).toBe(0);
  });
});

describe('fingerprints', () => {
  it('recognise our own stock push and a platform-side change', () => {
    expect(stockMatches(stockFingerprint(7), 7)).toBe(true);
    expect(stockMatches(stockFingerprint(7), 6)).toBe(false);
    expect(stockMatches(refusedFingerprint(stockFingerprint(7)), 7)).toBe(false);
  });

  it('cover only the price fields the ERP sent', () => {
    const hash = priceFingerprint({ price: 12.5, vatRate: 19 });
    expect(hash).toBe('p=12.5|v=19');
    expect(pricesMatch(hash, { price: 12.5, salePrice: 3, vatRate: 19 })).toBe(true);
    expect(pricesMatch(hash, { price: 12.49, vatRate: 19 })).toBe(false);
    expect(pricesMatch(priceFingerprint({ price: 1.01 }), { price: 1.0 })).toBe(false);
    expect(pricesMatch(priceFingerprint({ price: 9.999 }), { price: 10 })).toBe(true);
  });

  it('tell a cleared sale price (null) from one not sent, and match the platform holding none', () => {
    const cleared = priceFingerprint({ price: 5, salePrice: null });
    expect(cleared).toBe('p=5|s=null');
    expect(cleared).not.toBe(priceFingerprint({ price: 5 }));
    expect(pricesMatch(cleared, { price: 5, salePrice: null })).toBe(true);
    expect(pricesMatch(cleared, { price: 5, salePrice: 4 })).toBe(false);
    expect(pricesMatch(cleared, { price: 5, salePrice: 0 })).toBe(false);
    expect(pricesMatch(priceFingerprint({ salePrice: 4 }), { salePrice: null })).toBe(false);
  });
});

describe('notFoundMatcher', () => {
  const items = [
    { key: 'A', sku: 'A' },
    { key: 'TS/TS-M', sku: 'TS' },
    { key: 'TS/TS-L', sku: 'TS' },
    { key: 'B/B-1', sku: 'B' },
  ];
  const missing = (refs: { sku: string; variantSku?: string }[]): string[] =>
    items.filter(notFoundMatcher(refs)).map((item) => item.key);

  it('matches an item echoed as sent, and only that one', () => {
    expect(missing([{ sku: 'TS', variantSku: 'TS-L' }])).toEqual(['TS/TS-L']);
    expect(missing([{ sku: 'A' }])).toEqual(['A']);
    expect(missing([])).toEqual([]);
  });

  it('never acknowledges a variant whose SKU alone was echoed as not found', () => {
    expect(missing([{ sku: 'TS' }, { sku: 'B', variantSku: 'B-9' }])).toEqual(['TS/TS-M', 'TS/TS-L']);
  });
});
