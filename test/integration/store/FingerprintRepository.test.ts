import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FingerprintRepository } from '../../../src/store/FingerprintRepository.js';
import type { SqlDatabase, SqlStatement } from '../../../src/store/sql/SqlDatabase.js';
import type { Store } from '../../../src/store/Store.js';
import { STORE_KINDS, TestStores } from '../../support/testStores.js';
describe.each(STORE_KINDS)('%s store', (kind) => {
  const stores = new TestStores(kind);

  let store: Store;
  beforeEach(() => {
    store = stores.open();
  });
  afterEach(() => stores.cleanup());

  describe('fingerprints', () => {
    it('returns only the stored keys of the asked pipeline', () => {
      store.fingerprints.putMany('stock', [
        { key: 'A', hash: 'h1', generation: 1 },
        { key: 'B/V1', hash: 'h2', generation: 1 },
      ]);
      store.fingerprints.putMany('prices', [{ key: 'A', hash: 'p1', generation: 1 }]);
      const found = store.fingerprints.getMany('stock', ['A', 'B/V1', 'C']);
      expect([...found.keys()].sort()).toEqual(['A', 'B/V1']);
      expect(found.get('A')).toMatchObject({ key: 'A', hash: 'h1', generation: 1, missing: false });
      expect(found.get('A')!.ackedAt).toMatch(/^\d{4}-/);
    });

    it('never replaces a row with a higher generation by an older one', () => {
      store.fingerprints.putMany('stock', [{ key: 'A', hash: 'new', generation: 5 }]);
      store.fingerprints.putMany('stock', [{ key: 'A', hash: 'old', generation: 4 }]);
      expect(store.fingerprints.getMany('stock', ['A']).get('A')).toMatchObject({
        hash: 'new',
        generation: 5,
      });
      store.fingerprints.putMany('stock', [{ key: 'A', hash: 'newer', generation: 6 }]);
      expect(store.fingerprints.getMany('stock', ['A']).get('A')).toMatchObject({
        hash: 'newer',
        generation: 6,
      });
    });

    it('marks values unconfirmed (not acknowledged, not missing) unless a later generation holds the key', () => {
      store.fingerprints.putMany('stock', [
        { key: 'A', hash: 'q=1', generation: 1 },
        { key: 'B', hash: 'q=2', generation: 9 },
      ]);
      store.fingerprints.markMissing('stock', ['C'], 1);
      const marked = store.fingerprints.markUnconfirmed('stock', [
        { key: 'A', hash: '~q=5', generation: 2 },
        { key: 'B', hash: '~q=5', generation: 2 },
        { key: 'C', hash: '~q=5', generation: 2 },
        { key: 'D', hash: '~q=5', generation: 2 },
      ]);
      // B belongs to a later generation: the caller does not send it.
      expect([...marked].sort()).toEqual(['A', 'C', 'D']);
      const found = store.fingerprints.getMany('stock', ['A', 'B', 'C']);
      expect(found.get('A')).toMatchObject({ hash: '~q=5', generation: 2, ackedAt: null, missing: false });
      expect(found.get('B')).toMatchObject({ hash: 'q=2', generation: 9 });
      expect(found.get('C')).toMatchObject({ hash: '~q=5', missing: false });
      // The answer, recorded with the same generation, replaces the mark.
      store.fingerprints.putMany('stock', [{ key: 'A', hash: 'q=5', generation: 2 }]);
      expect(store.fingerprints.getMany('stock', ['A']).get('A')).toMatchObject({ hash: 'q=5' });
    });

    // How fast is bench:store's job; here, that 100k keys cost a statement per chunk, not per key.
    it('writes and reads 100k keys in one statement per chunk (100 writes, 200 reads)', () => {
      const entries = Array.from({ length: 100_000 }, (_, i) => ({
        key: `SKU-${i}`,
        hash: `h${i}`,
        generation: 1,
      }));
      const counted = countingStatements(store.db);
      const fingerprints = new FingerprintRepository(counted.db);
      fingerprints.putMany('stock', entries);
      expect(counted.executed).toBe(100);
      const found = fingerprints.getMany(
        'stock',
        entries.map((e) => e.key),
      );
      expect(counted.executed).toBe(300);
      expect(found.size).toBe(100_000);
      expect(found.get('SKU-0')!.hash).toBe('h0');
      expect(found.get('SKU-99999')!.hash).toBe('h99999');
      expect(store.fingerprints.count('stock')).toEqual({ total: 100_000, missing: 0 });
    }, 180_000);

    it('remembers not_found items and forgets them once cleared', () => {
      store.fingerprints.putMany('stock', [{ key: 'A', hash: 'h', generation: 1 }]);
      store.fingerprints.markMissing('stock', ['A', 'GHOST'], 2);
      expect(store.fingerprints.isMissing('stock', 'A')).toBe(true);
      expect(store.fingerprints.isMissing('stock', 'GHOST')).toBe(true);
      expect(store.fingerprints.isMissing('prices', 'GHOST')).toBe(false);
      expect(store.fingerprints.getMany('stock', ['GHOST']).get('GHOST')).toMatchObject({
        missing: true,
        hash: '',
      });
      expect(store.fingerprints.count('stock')).toEqual({ total: 2, missing: 2 });

      store.fingerprints.clearMissing('stock', ['GHOST']);
      const ghost = store.fingerprints.getMany('stock', ['GHOST']).get('GHOST')!;
      expect(ghost.missing).toBe(false);
      expect(ghost.hash).toBe('');
    });

    it('does not mark missing over a later acknowledged generation', () => {
      store.fingerprints.putMany('stock', [{ key: 'A', hash: 'h', generation: 3 }]);
      store.fingerprints.markMissing('stock', ['A'], 2);
      expect(store.fingerprints.isMissing('stock', 'A')).toBe(false);
    });

    it('an acknowledged value clears the missing mark', () => {
      store.fingerprints.markMissing('stock', ['A'], 1);
      store.fingerprints.putMany('stock', [{ key: 'A', hash: 'h', generation: 2 }]);
      expect(store.fingerprints.isMissing('stock', 'A')).toBe(false);
    });

    it('deletes some keys or a whole pipeline', () => {
      store.fingerprints.putMany('stock', [
        { key: 'A', hash: 'h', generation: 1 },
        { key: 'B', hash: 'h', generation: 1 },
      ]);
      store.fingerprints.putMany('prices', [{ key: 'A', hash: 'h', generation: 1 }]);
      store.fingerprints.delete('stock', ['A']);
      expect([...store.fingerprints.getMany('stock', ['A', 'B']).keys()]).toEqual(['B']);
      store.fingerprints.clear('stock');
      expect(store.fingerprints.getMany('stock', ['A', 'B']).size).toBe(0);
      expect(store.fingerprints.getMany('prices', ['A']).size).toBe(1);
    });
  });
});

/** The store's database as it is, counting the statements executed through what it prepares. */
function countingStatements(db: SqlDatabase): { db: SqlDatabase; readonly executed: number } {
  let executed = 0;
  const wrap = (statement: SqlStatement): SqlStatement => ({
    run: (...params) => (executed++, statement.run(...params)),
    get: (...params) => (executed++, statement.get(...params)),
    all: (...params) => (executed++, statement.all(...params)),
    iterate: (...params) => (executed++, statement.iterate(...params)),
    raw: () => wrap(statement.raw()),
    pluck: () => wrap(statement.pluck()),
  });
  const counted: SqlDatabase = {
    dialect: db.dialect,
    get open() {
      return db.open;
    },
    prepare: <P extends unknown[] | object = unknown[], R = unknown>(sql: string) =>
      wrap(db.prepare(sql)) as unknown as SqlStatement<P, R>,
    exec: (sql) => db.exec(sql),
    transaction: (fn) => db.transaction(fn),
    immediateTransaction: (fn) => db.immediateTransaction(fn),
    close: () => db.close(),
  };
  return {
    db: counted,
    get executed() {
      return executed;
    },
  };
}
