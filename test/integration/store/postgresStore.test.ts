import { afterEach, describe, expect, it } from 'vitest';
import { openPostgresStore } from '../../../src/store/openPostgresStore.js';
import { openStoreFromConfig } from '../../../src/store/openStoreFromConfig.js';
import { StoreError, StoreNotFoundError } from '../../../src/store/StoreError.js';
import { startTcpGate } from '../../support/tcpGate.js';
import { TEST_POSTGRES_URL, TestStores } from '../../support/testStores.js';

const stores = new TestStores('postgres');
afterEach(() => stores.cleanup());

function schemaExists(schema: string): boolean {
  const probe = stores.open();
  return (
    probe.db
      .prepare<[string], { n: number }>(
        'SELECT count(*) AS n FROM information_schema.schemata WHERE schema_name = ?',
      )
      .get(schema)!.n === 1
  );
}

describe('the PostgreSQL store', () => {
  it('refuses a missing schema to a command that only looks, and creates nothing', () => {
    const location = stores.location();
    if (location.type !== 'postgres') throw new Error('a postgres location');
    expect(() => openStoreFromConfig(location, { mustExist: true })).toThrow(StoreNotFoundError);
    expect(() => openStoreFromConfig(location, { mustExist: true })).toThrow(
      `no store at ${TEST_POSTGRES_URL} (schema ${location.schema})`,
    );
    expect(schemaExists(location.schema)).toBe(false);
    stores.open({}, location).close();
    expect(stores.open({ mustExist: true }, location).account.get()).toBeUndefined();
  });

  it('never shows the password of its URL: not in its name, not in an error', () => {
    const location = stores.location();
    if (location.type !== 'postgres') throw new Error('a postgres location');
    const url = TEST_POSTGRES_URL.replace('postgres@', 'postgres:s3cret-pw@');
    const store = openPostgresStore({ url, schema: location.schema });
    try {
      expect(store.path).not.toContain('s3cret-pw');
      expect(store.path).toContain('***');
      const error = (() => {
        try {
          store.db.prepare('SELECT no_such_column FROM cursors').get();
        } catch (caught) {
          return caught as Error;
        }
        throw new Error('the statement should have failed');
      })();
      expect(error).toBeInstanceOf(StoreError);
      expect(error.message).toMatch(/no_such_column/);
      expect(error.message).not.toContain('s3cret-pw');
    } finally {
      store.close();
    }
  });

  it('rolls a failed transaction back, a failed savepoint only, and refuses an async function', () => {
    const store = stores.open();
    expect(() =>
      store.transaction(() => {
        store.cursors.set('a', '1');
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(store.cursors.get('a')).toBeNull();
    store.transaction(() => {
      store.cursors.set('outer', '1');
      expect(() =>
        store.transaction(() => {
          store.cursors.set('inner', '1');
          store.db.prepare('SELECT no_such_column FROM cursors').get();
        }),
      ).toThrow(StoreError);
      store.cursors.set('after', '1');
    });
    expect([store.cursors.get('outer'), store.cursors.get('inner'), store.cursors.get('after')]).toEqual([
      '1',
      null,
      '1',
    ]);
    expect(() => store.transaction(() => Promise.resolve(1))).toThrow('cannot return a promise');
    expect(store.cursors.get('x')).toBeNull(); // the connection is usable after each of them
  });

  it("holds other connections' writes while a transaction runs (the store's advisory lock)", () => {
    const location = stores.location();
    const a = stores.open({}, location);
    const b = stores.open({ busyTimeoutMs: 700 }, location);
    a.transaction(() => {
      a.cursors.set('a', '1');
      // A read is not held; a write waits for the lock until its timeout.
      expect(b.cursors.get('a')).toBeNull();
      // The write waited for the lock until its own timeout (the message says which), not failed at once.
      expect(() => b.cursors.set('b', '1')).toThrow(/statement timeout/);
      expect(a.cursors.get('b')).toBeNull();
      expect(() => b.transaction(() => b.cursors.set('c', '1'))).toThrow(/statement timeout/);
    });
    expect(b.cursors.get('a')).toBe('1');
    b.cursors.set('b', '1'); // the lock is free again, and the timeout cost b nothing
    expect(a.cursors.get('b')).toBe('1');
    expect(a.cursors.get('c')).toBeNull();
  });

  it('loses a transaction whose holder stops talking (its lock with it), then connects again', () => {
    const location = stores.location();
    const a = stores.open({ busyTimeoutMs: 500 }, location);
    const b = stores.open({}, location);
    const pause = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
    expect(() =>
      a.transaction(() => {
        a.cursors.set('a', '1');
        pause(1_500); // a host whose network is gone: the server ends the idle transaction
        a.cursors.set('after', '1');
      }),
    ).toThrow(/lost inside a transaction|idle-in-transaction/);
    expect(b.cursors.get('a')).toBeNull();
    b.cursors.set('b', '1');
    expect(a.cursors.get('b')).toBe('1');
  });

  it('connects again after its connection was cut between statements', () => {
    const location = stores.location();
    const store = stores.open({}, location);
    store.cursors.set('kept', '1');
    const pid = store.db.prepare<[], number>('SELECT pg_backend_pid()').pluck().get()!;
    const other = stores.open({}, location);
    other.db.prepare('SELECT pg_terminate_backend(?)').get(pid);
    const alive = other.db
      .prepare<[number], number>('SELECT count(*) FROM pg_stat_activity WHERE pid = ?')
      .pluck();
    const deadline = Date.now() + 5_000;
    while (alive.get(pid) !== 0 && Date.now() < deadline); // the backend exits a moment after
    expect(alive.get(pid)).toBe(0);
    // The cut is noticed by the next statement at the latest: at most that one fails.
    try {
      store.cursors.get('kept');
    } catch (error) {
      expect(error).toBeInstanceOf(StoreError);
    }
    expect(store.cursors.get('kept')).toBe('1');
    expect(store.db.prepare<[], number>('SELECT pg_backend_pid()').pluck().get()).not.toBe(pid);
  });

  it(
    'fails at once while its database does not answer, and goes on once it does',
    { timeout: 60_000 },
    async () => {
      const gate = await startTcpGate(Number(new URL(TEST_POSTGRES_URL).port || 5432));
      try {
        const location = stores.location();
        if (location.type !== 'postgres') throw new Error('a postgres location');
        const url = new URL(TEST_POSTGRES_URL);
        url.port = String(gate.port);
        const store = openPostgresStore({ url: url.toString(), schema: location.schema });
        try {
          store.cursors.set('a', '1');
          await gate.cut();
          expect(() => store.cursors.get('a')).toThrow(StoreError); // the cut connection, or no new one
          // No statement waits for the 10 s connection timeout: each gives up on the 1 s one.
          for (let i = 0; i < 3; i++) {
            expect(() => store.cursors.get('a')).toThrow(/did not accept a connection within 1000 ms/);
          }
          await gate.restore();
          const deadline = Date.now() + 15_000;
          let value: string | null | undefined;
          while (value === undefined && Date.now() < deadline) {
            try {
              value = store.cursors.get('a');
            } catch {
              await new Promise((resolve) => setTimeout(resolve, 100));
            }
          }
          expect(value).toBe('1');
        } finally {
          store.close();
        }
      } finally {
        await gate.close();
      }
    },
  );

  it('runs leases on the database clock', () => {
    const store = stores.open();
    const databaseNow = store.db
      .prepare<[], number>('SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint')
      .pluck();
    const before = databaseNow.get()!;
    expect(store.leases.acquire('stock', 'me', 60_000)).toBe(true);
    const after = databaseNow.get()!;
    // 60 s from the moment the database acquired it, on the database's clock.
    const expiresAt = store.leases.holder('stock')!.expiresAt;
    expect(expiresAt).toBeGreaterThanOrEqual(before + 60_000);
    expect(expiresAt).toBeLessThanOrEqual(after + 60_000);
  });
});
