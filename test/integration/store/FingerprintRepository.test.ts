import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FingerprintRepository, type InFlightEntry } from '../../../src/store/FingerprintRepository.js';
import type { SqlDatabase, SqlStatement } from '../../../src/store/sql/SqlDatabase.js';
import type { Store } from '../../../src/store/Store.js';
import { STORE_KINDS, TestStores } from '../../support/testStores.js';
import { hashesByKey } from '../../support/hashesByKey.js';
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

    it("runs the caller's check first in the mark's transaction: its writes commit with the mark, its failure marks nothing", () => {
      const generation = store.generations.next('stock');
      const batches = () => store.db.prepare('SELECT count(*) FROM inflight_batches').pluck().get();
      const mark = store.fingerprints.markInFlight('stock', generation, [['A', '~q=1']], {
        first: () => store.cursors.set('fence', 'renewed'),
      });
      expect(mark.id).not.toBeNull();
      expect(store.cursors.get('fence')).toBe('renewed');
      expect(() =>
        store.fingerprints.markInFlight('stock', generation, [['B', '~q=2']], {
          first: () => {
            store.cursors.set('fence', 'lost');
            throw new Error('lease lost');
          },
        }),
      ).toThrow('lease lost');
      expect(store.cursors.get('fence')).toBe('renewed');
      expect(batches()).toBe(1);
      expect(hashesByKey(['A', 'B'], store.fingerprints.hashes('stock', ['A', 'B']))).toEqual(
        new Map([['A', '~q=1']]),
      );
    });

    it('puts a batch in flight as one row: its keys read as markers until its answer is recorded', () => {
      const first = store.generations.next('stock');
      store.fingerprints.putMany('stock', [{ key: 'A', hash: 'q=1', generation: first }]);
      store.fingerprints.markMissing('stock', ['C'], first);
      const generation = store.generations.next('stock');
      const batches = () => store.db.prepare('SELECT count(*) FROM inflight_batches').pluck().get();
      const mark = store.fingerprints.markInFlight('stock', generation, [
        ['A', '~q=5'],
        ['C', '~q=5'],
        ['D', '~q=5'],
      ]);
      expect(mark.superseded.size).toBe(0);
      expect(batches()).toBe(1);
      const found = store.fingerprints.getMany('stock', ['A', 'C', 'D']);
      expect(found.get('A')).toMatchObject({ hash: '~q=5', generation, ackedAt: null, missing: false });
      expect(found.get('C')).toMatchObject({ hash: '~q=5', missing: false });
      expect(found.get('D')).toMatchObject({ hash: '~q=5', ackedAt: null });
      expect(hashesByKey(['A', 'C', 'D'], store.fingerprints.hashes('stock', ['A', 'C', 'D']))).toEqual(
        new Map([
          ['A', '~q=5'],
          ['C', '~q=5'],
          ['D', '~q=5'],
        ]),
      );
      // A scan's own batches hold none of the keys it has still to read: its diff skips them.
      expect(
        hashesByKey(['A', 'C'], store.fingerprints.hashes('stock', ['A', 'C'], { before: generation })),
      ).toEqual(
        new Map([
          ['A', 'q=1'],
          ['C', null],
        ]),
      );
      // In flight is not known: neither the acknowledged A nor the missing C counts.
      expect(store.fingerprints.count('stock')).toEqual({ total: 0, missing: 0 });
      // The answer, recorded with the same generation, ends the row.
      store.transaction(() => {
        store.fingerprints.putMany('stock', [
          { key: 'A', hash: 'q=5', generation },
          { key: 'C', hash: 'q=5', generation },
          { key: 'D', hash: 'q=5', generation },
        ]);
        store.fingerprints.settle(mark.id!);
      });
      expect(batches()).toBe(0);
      expect(store.fingerprints.getMany('stock', ['A']).get('A')).toMatchObject({ hash: 'q=5', generation });
      expect(store.fingerprints.count('stock')).toEqual({ total: 3, missing: 0 });
    });

    it('leaves out keys a later generation holds, acknowledged or in flight (two scans racing)', () => {
      const older = store.generations.next('stock');
      const newer = store.generations.next('stock');
      store.fingerprints.putMany('stock', [{ key: 'B', hash: 'q=2', generation: newer }]);
      const later = store.fingerprints.markInFlight('stock', newer, [['E', '~q=7']]);
      const early = store.fingerprints.markInFlight('stock', older, [
        ['A', '~q=1'],
        ['B', '~q=1'],
        ['E', '~q=1'],
      ]);
      expect([...early.superseded].sort()).toEqual(['B', 'E']);
      const found = store.fingerprints.getMany('stock', ['A', 'B', 'E']);
      expect(found.get('A')).toMatchObject({ hash: '~q=1', generation: older });
      expect(found.get('B')).toMatchObject({ hash: 'q=2', generation: newer });
      expect(found.get('E')).toMatchObject({ hash: '~q=7', generation: newer });
      // The later batch's answer came first; the earlier one's (A only) never overwrites it.
      store.transaction(() => {
        store.fingerprints.putMany('stock', [{ key: 'E', hash: 'q=7', generation: newer }]);
        store.fingerprints.settle(later.id!);
      });
      store.transaction(() => {
        store.fingerprints.putMany('stock', [{ key: 'A', hash: 'q=1', generation: older }]);
        store.fingerprints.settle(early.id!);
      });
      expect(hashesByKey(['A', 'B', 'E'], store.fingerprints.hashes('stock', ['A', 'B', 'E']))).toEqual(
        new Map([
          ['A', 'q=1'],
          ['B', 'q=2'],
          ['E', 'q=7'],
        ]),
      );
      // A batch with nothing fresh leaves no row.
      expect(store.fingerprints.markInFlight('stock', older, [['B', '~q=0']]).id).toBeNull();
    });

    it('keeps a batch whose answer was lost in flight until a later generation acknowledges its keys', () => {
      const lost = store.generations.next('stock');
      store.fingerprints.putMany('stock', [{ key: 'A', hash: 'q=1', generation: lost - 1 }]);
      store.fingerprints.markInFlight('stock', lost, [
        ['A', '~q=2'],
        ['B', '~q=2'],
      ]);
      // Another repository on the same database (another process) sees it too.
      const other = new FingerprintRepository(store.db);
      expect(hashesByKey(['A', 'B'], other.hashes('stock', ['A', 'B']))).toEqual(
        new Map([
          ['A', '~q=2'],
          ['B', '~q=2'],
        ]),
      );
      // The ERP went back to q=1: still sent, whatever it says. Nothing to prune yet.
      expect(store.fingerprints.pruneInFlight('stock')).toBe(0);
      const next = store.generations.next('stock');
      store.fingerprints.putMany('stock', [{ key: 'A', hash: 'q=1', generation: next }]);
      expect(hashesByKey(['A', 'B'], store.fingerprints.hashes('stock', ['A', 'B']))).toEqual(
        new Map([
          ['A', 'q=1'],
          ['B', '~q=2'],
        ]),
      );
      expect(store.fingerprints.pruneInFlight('stock')).toBe(0);
      store.fingerprints.markMissing('stock', ['B'], next);
      expect(store.fingerprints.pruneInFlight('stock')).toBe(1);
      expect(hashesByKey(['A', 'B'], other.hashes('stock', ['A', 'B']))).toEqual(
        new Map([
          ['A', 'q=1'],
          ['B', null],
        ]),
      );
    });

    it('ends a batch whose first answer was lost once a retry of it is answered (same generation)', () => {
      const generation = store.generations.next('stock');
      const batch: InFlightEntry[] = [
        ['A', '~q=2'],
        ['B', '~q=2'],
      ];
      // The first attempt's answer is lost (a timeout, the process killed): its row stays.
      store.fingerprints.markInFlight('stock', generation, batch);
      // The retry (BullMQ's next attempt, the same batch and generation) is answered.
      const retry = store.fingerprints.markInFlight('stock', generation, batch);
      expect(retry.superseded.size).toBe(0);
      store.transaction(() => {
        store.fingerprints.putMany('stock', [{ key: 'A', hash: 'q=2', generation }]);
        store.fingerprints.markMissing('stock', ['B'], generation);
        store.fingerprints.settle(retry.id!);
      });
      // Both keys are answered: the next scan finds A unchanged and B missing, and sends neither.
      expect(
        hashesByKey(['A', 'B'], store.fingerprints.hashes('stock', ['A', 'B'], { before: generation + 1 })),
      ).toEqual(
        new Map([
          ['A', 'q=2'],
          ['B', null],
        ]),
      );
      expect(store.fingerprints.count('stock')).toEqual({ total: 2, missing: 1 });
      expect(store.fingerprints.pruneInFlight('stock')).toBe(1);
      expect(store.db.prepare('SELECT count(*) FROM inflight_batches').pluck().get()).toBe(0);
    });

    it('reads a mark per item, as stores before batch rows wrote them, as in flight', () => {
      // The row a push batch left in flight before the upgrade: its marker, not acknowledged.
      store.db
        .prepare(
          `INSERT INTO fingerprints (pipeline, key, hash, generation, acked_at, missing) VALUES (1, 'A', '~q=5', 3, NULL, 0)`,
        )
        .run();
      expect(hashesByKey(['A'], store.fingerprints.hashes('stock', ['A']))).toEqual(new Map([['A', '~q=5']]));
      expect(store.fingerprints.getMany('stock', ['A']).get('A')).toMatchObject({ ackedAt: null });
      expect(store.fingerprints.count('stock')).toEqual({ total: 0, missing: 0 });
      store.fingerprints.putMany('stock', [{ key: 'A', hash: 'q=5', generation: 3 }]);
      expect(hashesByKey(['A'], store.fingerprints.hashes('stock', ['A']))).toEqual(new Map([['A', 'q=5']]));
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
      // 200 reads of 500 keys and one look for batches in flight.
      expect(counted.executed).toBe(301);
      expect(found.size).toBe(100_000);
      expect(found.get('SKU-0')!.hash).toBe('h0');
      expect(found.get('SKU-99999')!.hash).toBe('h99999');
      expect(store.fingerprints.count('stock')).toEqual({ total: 100_000, missing: 0 });
    }, 180_000);

    it('writes a list of any length, a key given twice taking its last hash (SQLite: in pieces of fixed row counts)', () => {
      const entries = Array.from({ length: 1702 }, (_, i) => ({
        key: `SKU-${i}`,
        hash: `h${i}`,
        generation: 1,
      }));
      // SKU-5 again after its piece (another statement), SKU-1650 again within its statement.
      entries.push(
        { key: 'SKU-5', hash: 'last', generation: 1 },
        { key: 'SKU-1650', hash: 'again', generation: 1 },
      );
      const counted = countingStatements(store.db);
      new FingerprintRepository(counted.db).putMany('stock', entries);
      // 1000 pairs, then the 704 left: one JSON object on PostgreSQL (SKU-1650 in it once), 512 +
      // 128 + 64 rows of VALUES on SQLite (SKU-1650 twice in the last, in order).
      expect(counted.executed).toBe(kind === 'sqlite' ? 4 : 2);
      const found = hashesByKey(
        entries.map((e) => e.key),
        store.fingerprints.hashes(
          'stock',
          entries.map((e) => e.key),
        ),
      );
      expect(found.size).toBe(1702);
      expect(found.get('SKU-5')).toBe('last');
      expect(found.get('SKU-1650')).toBe('again');
      expect(found.get('SKU-1701')).toBe('h1701');
    });

    it('writes a list of several generations a run of one generation at a time, the older losing', () => {
      const counted = countingStatements(store.db);
      new FingerprintRepository(counted.db).putMany('stock', [
        { key: 'A', hash: 'a2', generation: 2 },
        { key: 'B', hash: 'b2', generation: 2 },
        { key: 'A', hash: 'a1', generation: 1 },
        { key: 'C', hash: 'c3', generation: 3 },
      ]);
      expect(counted.executed).toBe(3);
      expect(store.fingerprints.getMany('stock', ['A', 'B', 'C'])).toEqual(
        new Map([
          ['A', expect.objectContaining({ hash: 'a2', generation: 2 })],
          ['B', expect.objectContaining({ hash: 'b2', generation: 2 })],
          ['C', expect.objectContaining({ hash: 'c3', generation: 3 })],
        ]),
      );
      // Nothing to write: no statement, no transaction.
      new FingerprintRepository(counted.db).putMany('stock', []);
      expect(counted.executed).toBe(3);
    });

    it("the scan's read gives each key its own hash, in any order, for any length", () => {
      // Stored in key order; read in reverse with absent, missing, cleared and repeated keys among
      // them: a hash handed to the wrong key shows.
      const stored = Array.from({ length: 1500 }, (_, i) => ({
        key: `SKU-${String(i).padStart(4, '0')}`,
        hash: `q=${i}`,
        generation: 1,
      }));
      store.fingerprints.putMany('stock', stored);
      store.fingerprints.markMissing('stock', ['SKU-0007', 'SKU-1203', 'GHOST'], 2);
      store.fingerprints.markMissing('stock', ['SKU-0100'], 2);
      store.fingerprints.clearMissing('stock', ['SKU-0100']);
      const keys = ['NEW-1', ...stored.map((e) => e.key).reverse(), 'SKU-0003', 'NEW-2'];
      const expected = new Map<string, string | null>();
      for (const { key, hash } of stored) expected.set(key, hash);
      for (const key of ['SKU-0007', 'SKU-1203', 'GHOST']) expected.set(key, null);
      expected.set('SKU-0100', '');
      // One value per key at the key's index: the hash, null (missing), undefined (no fingerprint).
      const found = store.fingerprints.hashes('stock', [...keys, 'GHOST']);
      expect(found).toEqual([...keys, 'GHOST'].map((k) => expected.get(k)));
      expect(found[0]).toBeUndefined();
      expect(found[keys.indexOf('SKU-1203')]).toBeNull();
      expect(found[keys.length - 2]).toBe('q=3');
      expect(found[keys.length]).toBeNull();
      expect(store.fingerprints.hashes('prices', keys)).toEqual(keys.map(() => undefined));
      expect(store.fingerprints.hashes('stock', [])).toEqual([]);
    });

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
      store.fingerprints.markInFlight('stock', store.generations.next('stock'), [['C', '~h']]);
      store.fingerprints.clear('stock');
      expect(store.fingerprints.getMany('stock', ['A', 'B', 'C']).size).toBe(0);
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
    close: () => db.close(),
  };
  return {
    db: counted,
    get executed() {
      return executed;
    },
  };
}
