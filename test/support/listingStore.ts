import { join } from 'node:path';
import { openStore, type Store } from '../../src/store/Store.js';
import { tempDir } from './tempDir.js';

/**
 * An SQLite store in a temporary folder with what the listings show: an open reject with its
 * place, a resolved one, a simple and a variant product link. Its closing and deletion go to
 * `cleanups` (run them in afterEach).
 */
export function listingStore(cleanups: (() => void)[]): { dir: string; path: string; store: Store } {
  const { dir, cleanup } = tempDir('erp-sync-cli-');
  cleanups.push(cleanup);
  const path = join(dir, 'store.db');
  const store = openStore(path);
  store.rejects.record({
    pipeline: 'stock',
    key: 'A-1',
    reason: 'quantity must be at least 0, got -3',
    source: { file: 'stock.csv', line: 4 },
  });
  store.rejects.record({ pipeline: 'prices', key: 'B', reason: 'not on the platform' });
  store.rejects.resolve('prices', 'B');
  store.productLinks.upsertMany([
    { sku: 'A-1', variantSku: null, productId: 1, variantId: null, platformUpdatedAt: null },
    { sku: 'TS', variantSku: 'TS-M', productId: 2, variantId: 21, platformUpdatedAt: null },
  ]);
  cleanups.push(() => store.close());
  return { dir, path, store };
}
