import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../../src/store/Store.js';
import { STORE_KINDS, TestStores } from '../../support/testStores.js';
describe.each(STORE_KINDS)('%s store', (kind) => {
  const stores = new TestStores(kind);

  let store: Store;
  let clock = 1_000_000;
  beforeEach(() => {
    clock = 1_000_000;
    store = stores.open({ now: () => clock });
  });
  afterEach(() => stores.cleanup());

  describe('cursors', () => {
    it('stores, overwrites and deletes named positions', () => {
      expect(store.cursors.get('catalog')).toBeNull();
      store.cursors.set('catalog', 'a');
      store.cursors.set('catalog', 'b');
      expect(store.cursors.get('catalog')).toBe('b');
      store.cursors.delete('catalog');
      expect(store.cursors.get('catalog')).toBeNull();
    });
  });

  describe('product links', () => {
    it('keeps a product and its variants apart and updates in place', () => {
      store.productLinks.upsertMany([
        {
          sku: 'TS',
          variantSku: null,
          productId: 1,
          variantId: null,
          platformUpdatedAt: '2026-01-01T00:00:00Z',
        },
        { sku: 'TS', variantSku: 'TS-M', productId: 1, variantId: 11, platformUpdatedAt: null },
        { sku: 'TS', variantSku: 'TS-L', productId: 1, variantId: 12, platformUpdatedAt: null },
      ]);
      store.productLinks.upsertMany([
        { sku: 'TS', variantSku: 'TS-L', productId: 1, variantId: 13, platformUpdatedAt: null },
      ]);
      expect(store.productLinks.count()).toBe(3);
      expect(store.productLinks.get('TS')).toEqual({
        sku: 'TS',
        variantSku: null,
        productId: 1,
        variantId: null,
        platformUpdatedAt: '2026-01-01T00:00:00Z',
      });
      expect(store.productLinks.get('TS', 'TS-L')?.variantId).toBe(13);
      expect(store.productLinks.get('TS', 'TS-XL')).toBeUndefined();
      expect([...store.productLinks.all()].map((l) => l.variantSku)).toEqual([null, 'TS-L', 'TS-M']);
      expect(store.productLinks.byProductId(1)).toHaveLength(3);
    });

    it('looks many items up by key at once', () => {
      store.productLinks.upsertMany([
        { sku: 'A', variantSku: null, productId: 1, variantId: null, platformUpdatedAt: null },
        { sku: 'B', variantSku: 'B-1', productId: 2, variantId: 21, platformUpdatedAt: null },
      ]);
      const found = store.productLinks.getMany([
        { sku: 'A' },
        { sku: 'B', variantSku: 'B-1' },
        { sku: 'C' },
        { sku: 'B' },
      ]);
      expect([...found.keys()].sort()).toEqual(['A', 'B/B-1']);
      expect(found.get('B/B-1')?.variantId).toBe(21);
    });
  });

  describe('runs', () => {
    it('records a run from start to its counts or error', () => {
      const ok = store.runs.start('stock', { full: true });
      expect(store.runs.last('stock')).toMatchObject({
        id: ok,
        status: 'running',
        options: { full: true },
        finishedAt: null,
      });
      store.runs.finish(ok, { counts: { read: 10, sent: 3 } });
      const failed = store.runs.start('stock', {});
      store.runs.finish(failed, { counts: {}, error: 'api_auth: 401' });
      store.runs.start('prices', {});
      expect(store.runs.get(ok)).toMatchObject({ status: 'ok', counts: { read: 10, sent: 3 }, error: null });
      expect(store.runs.last('stock')).toMatchObject({
        id: failed,
        status: 'failed',
        error: 'api_auth: 401',
      });
      expect(store.runs.recent(2).map((r) => r.pipeline)).toEqual(['prices', 'stock']);
      expect(store.runs.last('catalog')).toBeUndefined();
    });
  });

  describe('leases', () => {
    it('lets one owner hold a lease until it is released', () => {
      expect(store.leases.acquire('stock', 'run-1', 60_000)).toBe(true);
      expect(store.leases.acquire('stock', 'run-2', 60_000)).toBe(false);
      expect(store.leases.acquire('prices', 'run-2', 60_000)).toBe(true);
      expect(store.leases.holder('stock')?.owner).toBe('run-1');
      store.leases.release('stock', 'run-2');
      expect(store.leases.acquire('stock', 'run-2', 60_000)).toBe(false);
      store.leases.release('stock', 'run-1');
      expect(store.leases.acquire('stock', 'run-2', 60_000)).toBe(true);
    });

    it('hands an expired lease to the next owner and refuses the old owner a renewal', () => {
      expect(store.leases.acquire('stock', 'crashed', 1_000)).toBe(true);
      clock += 999;
      expect(store.leases.acquire('stock', 'next', 1_000)).toBe(false);
      clock += 1;
      expect(store.leases.acquire('stock', 'next', 1_000)).toBe(true);
      expect(store.leases.renew('stock', 'crashed', 1_000)).toBe(false);
      expect(store.leases.renew('stock', 'next', 5_000)).toBe(true);
      clock += 4_000;
      expect(store.leases.acquire('stock', 'other', 1_000)).toBe(false);
    });

    it('serialises two connections to the same store', () => {
      const shared = stores.location();
      const a = stores.open({}, shared);
      const b = stores.open({}, shared);
      expect(a.leases.acquire('stock', 'process-a', 60_000)).toBe(true);
      expect(b.leases.acquire('stock', 'process-b', 60_000)).toBe(false);
      a.leases.release('stock', 'process-a');
      expect(b.leases.acquire('stock', 'process-b', 60_000)).toBe(true);
    });
  });

  describe('generations', () => {
    it('counts up per name and survives a reopen', () => {
      const location = stores.location();
      const first = stores.open({}, location);
      expect(first.generations.next('stock')).toBe(1);
      expect(first.generations.next('stock')).toBe(2);
      expect(first.generations.next('prices')).toBe(1);
      first.close();
      const second = stores.open({}, location);
      expect(second.generations.current('stock')).toBe(2);
      expect(second.generations.next('stock')).toBe(3);
    });
  });
});
