import { afterEach, describe, expect, it } from 'vitest';
import type { ProductLink } from '../../../src/store/ProductLinkRepository.js';
import { ITERATE_PAGE_ROWS, PostgresDatabase } from '../../../src/store/sql/PostgresDatabase.js';
import type { WorkerRequest } from '../../../src/store/sql/postgresWorker.js';
import { StoreBusyError } from '../../../src/store/StoreError.js';
import type { Store } from '../../../src/store/Store.js';
import { STORE_KINDS, TestStores } from '../../support/testStores.js';

/** More links than two pages of a PostgreSQL iteration, and not a multiple of a page. */
const MANY = 2 * ITERATE_PAGE_ROWS + 500;

function links(count: number, prefix = 'IT'): ProductLink[] {
  return Array.from({ length: count }, (_, i) => ({
    sku: `${prefix}-${String(i).padStart(6, '0')}`,
    variantSku: null,
    productId: 1 + i,
    variantId: null,
    platformUpdatedAt: null,
  }));
}

/** Cursors open on the store's PostgreSQL connection (none on SQLite, which has no such thing). */
function openCursors(store: Store): number {
  if (!(store.db instanceof PostgresDatabase)) return 0;
  return store.db.prepare<[], { n: number }>("SELECT count(*) AS n FROM pg_cursors WHERE name <> ''").get()!
    .n;
}

describe.each(STORE_KINDS)('iterating a result on the %s store', (kind) => {
  const stores = new TestStores(kind);
  afterEach(() => stores.cleanup());

  it('yields every row of a result of several pages, in order', () => {
    const store = stores.open();
    store.productLinks.upsertMany(links(MANY));
    const skus = [...store.productLinks.all()].map((link) => link.sku);
    expect(skus).toHaveLength(MANY);
    expect(skus).toEqual(links(MANY).map((link) => link.sku));
    expect(openCursors(store)).toBe(0);
  });

  it('closes its cursor when the loop is left early; later reads, writes and transactions run', () => {
    const store = stores.open();
    store.productLinks.upsertMany(links(MANY));
    const first: string[] = [];
    for (const link of store.productLinks.all()) {
      first.push(link.sku);
      if (first.length === 10) break;
    }
    expect(first).toEqual(links(10).map((link) => link.sku));
    expect(openCursors(store)).toBe(0);
    store.productLinks.upsertMany(links(1, 'LATER'));
    store.transaction(() => store.cursors.set('after', 'break'));
    expect(store.cursors.get('after')).toBe('break');
    expect([...store.productLinks.all()]).toHaveLength(MANY + 1);
  });

  it('inside a transaction sees that transaction, which a rollback takes back', () => {
    const location = stores.location();
    const store = stores.open({}, location);
    const other = stores.open({}, location);
    store.productLinks.upsertMany(links(MANY));
    const seen = store.transaction(() => {
      store.productLinks.upsertMany(links(3, 'NEW'));
      store.productLinks.delete(links(1)[0]!.sku);
      const inside = [...store.productLinks.all()].map((link) => link.sku);
      // Another connection does not see the transaction before its commit.
      expect(other.productLinks.count()).toBe(MANY);
      return inside;
    });
    expect(seen).toHaveLength(MANY + 2);
    expect(seen.slice(0, 3)).toEqual(['IT-000001', 'IT-000002', 'IT-000003']);
    expect(seen).toContain('NEW-000002');
    expect(() =>
      store.transaction(() => {
        store.productLinks.upsertMany(links(5, 'GONE'));
        expect([...store.productLinks.all()]).toHaveLength(MANY + 7);
        throw new Error('take it back');
      }),
    ).toThrow('take it back');
    expect([...store.productLinks.all()]).toHaveLength(MANY + 2);
    expect(openCursors(store)).toBe(0);
  });

  it('while open: reads run, a write, a transaction or the same statement are refused as busy', () => {
    const store = stores.open();
    store.productLinks.upsertMany(links(MANY));
    const busy = kind === 'postgres' ? StoreBusyError : TypeError;
    const all = store.db.prepare<[], { sku: string }>('SELECT sku FROM product_links ORDER BY sku');
    const iteration = all.iterate();
    expect(iteration.next().value).toEqual({ sku: 'IT-000000' });
    expect(store.productLinks.count()).toBe(MANY);
    expect(store.productLinks.get('IT-002400')?.productId).toBe(2401);
    expect(() => store.productLinks.upsertMany(links(1, 'WRITE'))).toThrow(busy);
    expect(() => store.cursors.set('x', '1')).toThrow(/busy/);
    expect(() => store.transaction(() => store.cursors.get('x'))).toThrow(/busy/);
    expect(() => all.get()).toThrow(/busy/);
    let rest = 0;
    for (const row of { [Symbol.iterator]: () => iteration }) if (row.sku.startsWith('IT-')) rest += 1;
    expect(rest).toBe(MANY - 1);
    store.productLinks.upsertMany(links(1, 'WRITE'));
    expect(store.productLinks.count()).toBe(MANY + 1);
  });
});

describe('an iteration on the PostgreSQL store', () => {
  const stores = new TestStores('postgres');
  afterEach(() => stores.cleanup());

  /** The rows of each page the worker sent (the answers to declare and fetch). */
  function recordPages(db: PostgresDatabase): number[] {
    const pages: number[] = [];
    const request = db.request.bind(db);
    db.request = (message: WorkerRequest) => {
      const answer = request(message);
      if (message.op === 'declare' || message.op === 'fetch') pages.push(answer.rows.length);
      return answer;
    };
    return pages;
  }

  it('holds one page at a time: each round trip carries at most a page of rows', () => {
    const store = stores.open();
    if (!(store.db instanceof PostgresDatabase)) throw new Error('a PostgreSQL store');
    store.productLinks.upsertMany(links(MANY));
    const pages = recordPages(store.db);
    let rows = 0;
    for (const _link of store.productLinks.all()) {
      rows += 1;
      // The worker has sent only the pages up to this row, never the rest of the result.
      expect(pages.reduce((sum, n) => sum + n, 0)).toBeLessThan(rows + ITERATE_PAGE_ROWS);
    }
    expect(rows).toBe(MANY);
    expect(pages).toEqual([ITERATE_PAGE_ROWS, ITERATE_PAGE_ROWS, MANY - 2 * ITERATE_PAGE_ROWS]);

    pages.length = 0;
    store.productLinks.delete(links(MANY)[MANY - 1]!.sku);
    const twoPages = store.db.prepare('SELECT sku FROM product_links ORDER BY sku LIMIT ?').pluck();
    expect([...twoPages.iterate(2 * ITERATE_PAGE_ROWS)]).toHaveLength(2 * ITERATE_PAGE_ROWS);
    expect(pages).toEqual([ITERATE_PAGE_ROWS, ITERATE_PAGE_ROWS, 0]);
    expect(openCursors(store)).toBe(0);
  });

  it('refuses to end a transaction with an iteration open, and rolls it back', () => {
    const store = stores.open();
    store.productLinks.upsertMany(links(MANY));
    expect(() =>
      store.transaction(() => {
        store.cursors.set('left', 'open');
        store.productLinks.all().next();
      }),
    ).toThrow(StoreBusyError);
    expect(store.cursors.get('left')).toBeNull();
    expect(openCursors(store)).toBe(0);
    store.cursors.set('next', 'runs');
    expect(store.cursors.get('next')).toBe('runs');
  });
});
