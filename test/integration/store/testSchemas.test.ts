import { afterEach, describe, expect, it } from 'vitest';
import { PostgresDatabase } from '../../../src/store/sql/PostgresDatabase.js';
import {
  dropStaleTestSchemas,
  dropTestSchema,
  STALE_TEST_SCHEMA_MS,
  TEST_POSTGRES_URL,
  TestStores,
} from '../../support/testStores.js';

// The schemas the store tests leave behind when their process is killed before afterEach.
const HOUR = STALE_TEST_SCHEMA_MS;
const created: string[] = [];
afterEach(() => {
  while (created.length) dropTestSchema(created.pop()!);
});

function schemas(): string[] {
  const db = new PostgresDatabase({ url: TEST_POSTGRES_URL, schema: 'public' });
  try {
    return db.prepare<[], string>(`SELECT nspname FROM pg_namespace`).pluck().all();
  } finally {
    db.close();
  }
}

function createSchema(name: string, migratedAt?: string): void {
  created.push(name);
  const db = new PostgresDatabase({ url: TEST_POSTGRES_URL, schema: 'public' });
  try {
    db.exec(`CREATE SCHEMA "${name}"`);
    if (migratedAt) {
      db.exec(`CREATE TABLE "${name}".schema_migrations (version BIGINT, name TEXT, applied_at TEXT)`);
      db.prepare(`INSERT INTO "${name}".schema_migrations VALUES (1, 'baseline', ?)`).run(migratedAt);
    }
  } finally {
    db.close();
  }
}

describe('stale test schemas', () => {
  it('drops test schemas older than an hour, and keeps fresh ones and those not of the tests', () => {
    // A month ahead, and the sweep limited to this test's names: the test files running beside
    // this one sweep at their real time, so they see these schemas as fresh and leave them, and
    // this sweep leaves theirs.
    const now = Date.now() + 30 * 24 * HOUR;
    const old = `test_${(now - 2 * HOUR).toString(36)}_0000dead`;
    const fresh = `test_${(now - HOUR / 2).toString(36)}_0000beef`;
    const oldUnnamedAge = 'test_00000000dead'; // the former name: aged by its first migration
    const freshUnnamedAge = 'test_00000000beef';
    const notOurs = 'test_keep_me_alone';
    createSchema(old);
    createSchema(fresh);
    createSchema(oldUnnamedAge, new Date(now - 3 * HOUR).toISOString());
    createSchema(freshUnnamedAge, new Date(now - 60_000).toISOString());
    createSchema(notOurs, new Date(now - 3 * HOUR).toISOString());

    const dropped = dropStaleTestSchemas(now, [old, fresh, oldUnnamedAge, freshUnnamedAge, notOurs]);

    expect(dropped).toContain(old);
    expect(dropped).toContain(oldUnnamedAge);
    const left = schemas();
    expect(left).not.toContain(old);
    expect(left).not.toContain(oldUnnamedAge);
    expect(left).toEqual(expect.arrayContaining([fresh, freshUnnamedAge, notOurs]));
  });

  it('drops a test schema on cleanup, also when the test closed its store itself', () => {
    const stores = new TestStores('postgres');
    const location = stores.location();
    if (location.type !== 'postgres') throw new Error('a postgres location');
    const store = stores.open({}, location);
    store.cursors.set('a', '1');
    expect(schemas()).toContain(location.schema);
    store.close(); // closed by the test already: cleanup still drops the schema
    expect(() => stores.cleanup()).not.toThrow();
    expect(schemas()).not.toContain(location.schema);
  });
});
