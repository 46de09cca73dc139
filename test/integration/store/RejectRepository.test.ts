import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../../src/store/Store.js';
import { STORE_KINDS, TestStores } from '../../support/testStores.js';
describe.each(STORE_KINDS)('%s store', (kind) => {
  const stores = new TestStores(kind);

  let store: Store;
  beforeEach(() => {
    store = stores.open();
  });
  afterEach(() => stores.cleanup());

  describe('rejects', () => {
    it('counts a reject seen again and keeps its first sighting', async () => {
      store.rejects.record({
        pipeline: 'stock',
        key: 'A',
        reason: 'negative quantity',
        source: { file: 'stock.csv', line: 3 },
      });
      const [first] = store.rejects.list();
      await new Promise((r) => setTimeout(r, 5));
      store.rejects.record({
        pipeline: 'stock',
        key: 'A',
        reason: 'negative quantity',
        source: { file: 'stock.csv', line: 7 },
      });
      const all = store.rejects.list();
      expect(all).toHaveLength(1);
      expect(all[0]).toMatchObject({
        count: 2,
        firstSeen: first!.firstSeen,
        source: { file: 'stock.csv', line: 7 },
      });
      expect(all[0]!.lastSeen > first!.lastSeen).toBe(true);
    });

    it('keeps different reasons of one key apart', () => {
      store.rejects.record({ pipeline: 'stock', key: 'A', reason: 'r1' });
      store.rejects.record({ pipeline: 'stock', key: 'A', reason: 'r2' });
      store.rejects.record({ pipeline: 'prices', key: 'A', reason: 'r1' });
      expect(store.rejects.countOpen()).toBe(3);
      expect(store.rejects.countOpen('stock')).toBe(2);
      expect(store.rejects.list({ pipeline: 'prices' }).map((r) => r.reason)).toEqual(['r1']);
    });

    it('hides resolved rejects unless asked, and reopens one seen again', () => {
      store.rejects.record({ pipeline: 'stock', key: 'A', reason: 'not on the platform' });
      store.rejects.resolve('stock', 'A');
      expect(store.rejects.list()).toEqual([]);
      expect(store.rejects.countOpen('stock')).toBe(0);
      const resolved = store.rejects.list({ includeResolved: true });
      expect(resolved).toHaveLength(1);
      expect(resolved[0]!.resolvedAt).not.toBeNull();

      store.rejects.record({ pipeline: 'stock', key: 'A', reason: 'not on the platform' });
      const [reopened] = store.rejects.list();
      expect(reopened).toMatchObject({ key: 'A', count: 2, resolvedAt: null, source: null });
    });

    it('tells which of many keys have an open reject in the pipeline, each once', () => {
      for (const reason of ['one', 'two']) store.rejects.record({ pipeline: 'orders', key: '1', reason });
      store.rejects.record({ pipeline: 'orders', key: '2', reason: 'x' });
      store.rejects.resolve('orders', '2');
      store.rejects.record({ pipeline: 'stock', key: '3', reason: 'x' });
      expect([...store.rejects.openAmong('orders', ['1', '2', '3', '4'])]).toEqual(['1']);
      expect(store.rejects.openAmong('orders', []).size).toBe(0);
    });

    it('resolves every open reject not seen in the latest full scan', () => {
      for (const key of ['A', 'B', 'C']) store.rejects.record({ pipeline: 'stock', key, reason: 'bad' });
      store.rejects.record({ pipeline: 'prices', key: 'A', reason: 'bad' });
      expect(store.rejects.resolveAllExcept('stock', ['B'])).toBe(2);
      expect(store.rejects.list({ pipeline: 'stock' }).map((r) => r.key)).toEqual(['B']);
      expect(store.rejects.countOpen('prices')).toBe(1);
    });

    it('lists in reading order, numbers as numbers: stock.csv:2 before stock.csv:10', async () => {
      // Recorded one by one, line 10 last: newest-first alone would list it first.
      for (const line of [2, 3, 10]) {
        store.rejects.record({
          pipeline: 'stock',
          key: `SKU-${line}`,
          reason: 'bad',
          source: { file: 'stock.csv', line },
        });
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      store.rejects.record({ pipeline: 'orders', key: '10', reason: 'bad' });
      store.rejects.record({ pipeline: 'orders', key: '9', reason: 'bad' });
      const where = store.rejects.list().map((r) => `${r.pipeline} ${r.source?.line ?? r.key}`);
      expect(where).toEqual(['orders 9', 'orders 10', 'stock 2', 'stock 3', 'stock 10']);
    });
    it('filters by SKU (its variants too, nothing that merely starts alike) and pages newest first', () => {
      for (const key of ['SKU-1', 'SKU-1/RED', 'SKU-10', 'SKU-2', 'ROW 5']) {
        store.rejects.record({ pipeline: 'stock', key, reason: 'bad' });
      }
      store.rejects.record({ pipeline: 'prices', key: 'SKU-1', reason: 'bad' });
      expect(store.rejects.list({ sku: 'SKU-1' }).map((r) => `${r.pipeline} ${r.key}`)).toEqual([
        'prices SKU-1',
        'stock SKU-1',
        'stock SKU-1/RED',
      ]);
      expect(store.rejects.countOpen(undefined, 'SKU-1')).toBe(3);
      expect(store.rejects.countOpen('stock', 'SKU-1')).toBe(2);
      expect(store.rejects.list({ sku: '%' })).toEqual([]);
      const all = store.rejects.list({ pipeline: 'stock' }).map((r) => r.key);
      const pages = [0, 2, 4].flatMap((offset) =>
        store.rejects.list({ pipeline: 'stock', limit: 2, offset }).map((r) => r.key),
      );
      expect(pages.sort()).toEqual([...all].sort());
      expect(store.rejects.list({ pipeline: 'stock', limit: 2, offset: 4 })).toHaveLength(1);
    });
  });
});
