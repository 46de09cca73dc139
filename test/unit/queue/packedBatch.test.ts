import { describe, expect, it } from 'vitest';
import type { BulkPriceItem, BulkStockItem } from '../../../src/api/inputs.js';
import { packBatch, readPushBatch, type PackedBatch } from '../../../src/queue/packedBatch.js';
import type { PushBatch } from '../../../src/sync/push/pushBatch.js';

const stock: PushBatch<BulkStockItem> = {
  pipeline: 'stock',
  generation: 42,
  items: [
    {
      key: 'A-1',
      sku: 'A-1',
      source: { file: 'stock.csv', line: 2 },
      hash: 'q=1',
      wire: { sku: 'A-1', quantity: 1 },
    },
    {
      key: 'A-2/RED',
      sku: 'A-2',
      source: { file: 'stock.csv', line: 3 },
      hash: 'q=0',
      wire: { sku: 'A-2', variant_sku: 'RED', quantity: 0 },
    },
    {
      key: 'A-3',
      sku: 'A-3',
      source: { file: 'more.csv', line: 9 },
      hash: 'q=5',
      wire: { sku: 'A-3', quantity: 5 },
    },
    { key: 'A-4', sku: 'A-4', hash: 'q=7', wire: { sku: 'A-4', quantity: 7 } },
    { key: 'A-5', sku: 'A-5', source: { row: 'SQL row 5' }, hash: 'q=8', wire: { sku: 'A-5', quantity: 8 } },
  ],
};

/** Through Redis: BullMQ stores the data as JSON. */
const viaJson = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

describe('packBatch / readPushBatch', () => {
  it('gives back every item with its key, SKU, hash, wire and source, each file named once', () => {
    const packed = viaJson(packBatch(stock));
    expect(packed).toMatchObject({
      packed: 1,
      pipeline: 'stock',
      generation: 42,
      files: ['stock.csv', 'more.csv'],
    });
    expect(packed.skus).toEqual([null, 'A-2', null, null, null]);
    expect(readPushBatch(packed)).toEqual(stock);
  });

  it('packs a price batch (null sale price kept) and leaves the rows out when no item has one', () => {
    const prices: PushBatch<BulkPriceItem> = {
      pipeline: 'prices',
      generation: 3,
      items: [
        { key: 'P', sku: 'P', hash: 'p', wire: { sku: 'P', price: 9.5, sale_price: null, vat_rate: 19 } },
      ],
    };
    const packed = viaJson(packBatch(prices));
    expect(packed.rows).toBeUndefined();
    expect(readPushBatch(packed)).toEqual(prices);
  });

  it('takes a third of the bytes of the object-per-item layout for a plain stock batch', () => {
    const items = Array.from({ length: 1000 }, (_, i) => {
      const sku = `SKU-${String(i).padStart(7, '0')}`;
      return {
        key: sku,
        sku,
        source: { file: '/srv/erp/stock.csv', line: i + 2 },
        hash: `q=${i}`,
        wire: { sku, quantity: i },
      };
    });
    const batch: PushBatch<BulkStockItem> = { pipeline: 'stock', generation: 1, items };
    expect(JSON.stringify(packBatch(batch)).length).toBeLessThan(JSON.stringify(batch).length / 2);
  });

  it('reads the object-per-item layout a version before queued, as it is', () => {
    const old = viaJson(stock);
    expect(readPushBatch(old)).toEqual(stock);
  });

  it('refuses data it cannot read, naming why', () => {
    const packed = viaJson(packBatch(stock));
    const cases: [unknown, RegExp][] = [
      [undefined, /carries no batch/],
      [{ pipeline: 'orders', generation: 1, items: [] }, /names no push pipeline \(orders\)/],
      [{ pipeline: 'stock', items: [] }, /stock batch has no generation/],
      [{ pipeline: 'stock', generation: 1 }, /stock batch has no items/],
      [{ ...packed, keys: undefined }, /packed batch has no keys/],
      [{ ...packed, hashes: packed.hashes.slice(1) }, /hashes do not match its 5 keys/],
      [{ ...packed, rows: [] }, /rows do not match its 5 keys/],
    ];
    for (const [data, message] of cases) {
      let caught: unknown;
      try {
        readPushBatch(data as PackedBatch);
      } catch (error) {
        caught = error;
      }
      expect(caught).toMatchObject({ code: 'job_payload_invalid', message: expect.stringMatching(message) });
    }
  });
});
