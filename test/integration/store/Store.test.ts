import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../../src/store/Store.js';
import { MIGRATIONS } from '../../../src/store/migrations.js';
import { POSTGRES_MIGRATIONS } from '../../../src/store/postgresMigrations.js';
import { StoreError } from '../../../src/store/StoreError.js';
import BetterSqlite3 from 'better-sqlite3';
import { migrate } from '../../../src/store/migrate.js';
import { SqliteDatabase } from '../../../src/store/sql/SqliteDatabase.js';
import { tempDir } from '../../support/tempDir.js';
import { PostgresDatabase } from '../../../src/store/sql/PostgresDatabase.js';
import type { SqlDatabase } from '../../../src/store/sql/SqlDatabase.js';
import { STORE_KINDS, TEST_POSTGRES_URL, TestStores } from '../../support/testStores.js';
import { hashesByKey } from '../../support/hashesByKey.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});

function fileStore(): { path: string; open: () => Store } {
  const { dir, cleanup } = tempDir();
  const path = join(dir, 'nested', 'state', 'erp-sync.db');
  const opened: Store[] = [];
  cleanups.push(() => {
    for (const s of opened) s.close();
    cleanup();
  });
  return {
    path,
    open: () => {
      const store = openStore(path);
      opened.push(store);
      return store;
    },
  };
}

describe('openStore', () => {
  it('creates the parent folder and uses WAL mode with a busy timeout', () => {
    const { path, open } = fileStore();
    const store = open();
    expect(existsSync(path)).toBe(true);
    expect((store.db as SqliteDatabase).native.pragma('journal_mode', { simple: true })).toBe('wal');
    expect((store.db as SqliteDatabase).native.pragma('busy_timeout', { simple: true })).toBeGreaterThan(0);
  });

  it('runs an appended migration on an existing file', () => {
    const { path, open } = fileStore();
    open().close();
    const extended = [
      ...MIGRATIONS,
      {
        version: 999,
        name: 'test table',
        up: (db: Store['db']) => db.exec('CREATE TABLE extra (id INTEGER)'),
      },
    ];
    const store = openStore(path, { migrations: extended });
    cleanups.unshift(() => store.close());
    expect(store.db.prepare("SELECT name FROM sqlite_master WHERE name = 'extra'").pluck().get()).toBe(
      'extra',
    );
  });

  it('keeps the per-item in-flight marks of a store from before batch rows (version 71) in flight', () => {
    const { path, open } = fileStore();
    open().close();
    rmSync(path);
    // The store as version 71 made it, with what a push batch left: A in flight, B acknowledged.
    const native = new BetterSqlite3(path);
    migrate(
      new SqliteDatabase(native),
      MIGRATIONS.filter((m) => m.version < 72),
    );
    native.exec(`INSERT INTO generations (name, value) VALUES ('stock', 2);
      INSERT INTO fingerprints (pipeline, key, hash, generation, acked_at, missing) VALUES
        ('stock', 'A', '~q=2', 2, NULL, 0), ('stock', 'B', 'q=1', 1, '2026-11-25T00:00:00.000Z', 0);`);
    native.close();
    const store = openStore(path);
    cleanups.unshift(() => store.close());
    // The ERP says q=1 again: A is still unknown (sent again), B unchanged.
    expect(hashesByKey(['A', 'B'], store.fingerprints.hashes('stock', ['A', 'B']))).toEqual(
      new Map([
        ['A', '~q=2'],
        ['B', 'q=1'],
      ]),
    );
    expect(store.fingerprints.count('stock')).toEqual({ total: 1, missing: 0 });
    // A batch after the upgrade is a row of its own, and its answer replaces the old mark.
    const generation = store.generations.next('stock');
    const mark = store.fingerprints.markInFlight('stock', generation, [['A', '~q=1']]);
    expect(mark.superseded.size).toBe(0);
    store.transaction(() => {
      store.fingerprints.putMany('stock', [{ key: 'A', hash: 'q=1', generation }]);
      store.fingerprints.settle(mark.id!);
    });
    expect(hashesByKey(['A'], store.fingerprints.hashes('stock', ['A']))).toEqual(new Map([['A', 'q=1']]));
  });

  it('reports a failing migration as a StoreError naming it', () => {
    const broken = [{ version: 1, name: 'broken', up: (db: Store['db']) => db.exec('CREATE TABLE (') }];
    expect(() => openStore(':memory:', { migrations: broken })).toThrow(StoreError);
    expect(() => openStore(':memory:', { migrations: broken })).toThrow(/migration 1 \(broken\)/);
  });

  it('works in memory for unit tests', () => {
    const store = openStore(':memory:');
    store.cursors.set('a', '1');
    expect(store.cursors.get('a')).toBe('1');
    store.close();
  });
});

describe.each(STORE_KINDS)('the %s store', (kind) => {
  const stores = new TestStores(kind);
  afterEach(() => stores.cleanup());
  const migrations = kind === 'sqlite' ? MIGRATIONS : POSTGRES_MIGRATIONS;

  it('applies every migration once and nothing more on reopen', () => {
    const location = stores.location();
    const first = stores.open({}, location);
    first.cursors.set('catalog', '2026-01-01T00:00:00Z');
    first.close();
    const second = stores.open({}, location);
    const versions = second.db
      .prepare('SELECT version FROM schema_migrations ORDER BY version')
      .pluck()
      .all();
    expect(versions).toEqual(migrations.map((m) => m.version));
    expect(second.cursors.get('catalog')).toBe('2026-01-01T00:00:00Z');
  });

  it('sees writes of another connection (another process) to the same store', () => {
    const location = stores.location();
    const a = stores.open({}, location);
    const b = stores.open({}, location);
    a.cursors.set('orders', '42');
    expect(b.cursors.get('orders')).toBe('42');
    expect(a.generations.next('stock')).toBe(1);
    expect(b.generations.next('stock')).toBe(2);
    expect(a.generations.next('stock')).toBe(3);
  });

  it('rolls a failed transaction back entirely', () => {
    const store = stores.open();
    expect(() =>
      store.transaction(() => {
        store.cursors.set('x', '1');
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(store.cursors.get('x')).toBeNull();
  });

  it('keeps fingerprints, their acknowledgement times and marks through the narrower rows (version 73)', () => {
    // The store at version 72, as a run left it: acknowledged values of both pipelines, a missing
    // item, and a per-item in-flight mark of a store from before batch rows.
    const location = stores.location();
    const db: SqlDatabase =
      kind === 'sqlite'
        ? new SqliteDatabase(new BetterSqlite3((location as { path: string }).path))
        : new PostgresDatabase({ url: TEST_POSTGRES_URL, schema: (location as { schema: string }).schema });
    if (kind === 'postgres')
      db.transaction(() => db.exec(`CREATE SCHEMA "${(location as { schema: string }).schema}"`));
    migrate(
      db,
      migrations.filter((m) => m.version < 73),
    );
    db.transaction(() =>
      db.exec(`INSERT INTO fingerprints (pipeline, key, hash, generation, acked_at, missing) VALUES
        ('stock', 'A', 'q=1', 4, '2026-11-25T10:11:12.345Z', 0),
        ('prices', 'A', 'p=2.5', 5, '2026-11-26T00:00:00.001Z', 0),
        ('stock', 'M', '', 6, NULL, 1),
        ('stock', 'F', '~q=3', 7, NULL, 0)`),
    );
    db.close();
    const store = stores.open({}, location);
    expect(store.fingerprints.getMany('stock', ['A', 'M', 'F'])).toEqual(
      new Map([
        ['A', { key: 'A', hash: 'q=1', generation: 4, ackedAt: '2026-11-25T10:11:12.345Z', missing: false }],
        ['M', { key: 'M', hash: '', generation: 6, ackedAt: null, missing: true }],
        ['F', { key: 'F', hash: '~q=3', generation: 7, ackedAt: null, missing: false }],
      ]),
    );
    expect(store.fingerprints.getMany('prices', ['A']).get('A')).toMatchObject({
      hash: 'p=2.5',
      ackedAt: '2026-11-26T00:00:00.001Z',
    });
    expect(store.fingerprints.count('stock')).toEqual({ total: 2, missing: 1 });
    // New writes land in the same rows: one row per pipeline and key.
    store.fingerprints.putMany('stock', [{ key: 'A', hash: 'q=9', generation: 8 }]);
    expect(hashesByKey(['A', 'M'], store.fingerprints.hashes('stock', ['A', 'M']))).toEqual(
      new Map([
        ['A', 'q=9'],
        ['M', null],
      ]),
    );
    expect(hashesByKey(['A'], store.fingerprints.hashes('prices', ['A']))).toEqual(new Map([['A', 'p=2.5']]));
    expect(store.db.prepare('SELECT count(*) AS n FROM fingerprints').get()).toEqual({ n: 4 });
  });
});
