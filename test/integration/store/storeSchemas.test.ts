import { afterEach, describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../../../src/store/migrations.js';
import { POSTGRES_MIGRATIONS } from '../../../src/store/postgresMigrations.js';
import type { Store } from '../../../src/store/Store.js';
import { TestStores } from '../../support/testStores.js';

/** table -> "column type null|not null", indexes by name: what both stores must agree on. */
interface Schema {
  version: number;
  tables: Record<string, string[]>;
  indexes: string[];
}

function sqliteSchema(store: Store): Schema {
  const tables: Record<string, string[]> = {};
  const names = store.db
    .prepare<[], string>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
    .pluck()
    .all();
  for (const name of names) {
    const columns = store.db
      .prepare<[], { name: string; type: string; notnull: number; pk: number }>(`PRAGMA table_info(${name})`)
      .all();
    // SQLite lets a primary key column hold NULL unless it says NOT NULL; PostgreSQL never does.
    tables[name] = columns
      .map((c) => `${c.name} ${c.type.toLowerCase()} ${c.notnull || c.pk ? 'not null' : 'null'}`)
      .sort();
  }
  const indexes = store.db
    .prepare<[], string>("SELECT name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_%'")
    .pluck()
    .all();
  return { version: version(store), tables, indexes: indexes.sort() };
}

function postgresSchema(store: Store): Schema {
  const tables: Record<string, string[]> = {};
  const columns = store.db
    .prepare<[], { table_name: string; column_name: string; data_type: string; is_nullable: string }>(
      `SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns
       WHERE table_schema = current_schema()`,
    )
    .all();
  for (const c of columns) {
    // rowid: SQLite's implicit insertion order, a column of its own on PostgreSQL.
    if (c.table_name === 'applied_events' && c.column_name === 'rowid') continue;
    const type = c.data_type === 'bigint' ? 'integer' : c.data_type;
    (tables[c.table_name] ??= []).push(
      `${c.column_name} ${type} ${c.is_nullable === 'NO' ? 'not null' : 'null'}`,
    );
  }
  for (const list of Object.values(tables)) list.sort();
  const indexes = store.db
    .prepare<[], string>(
      "SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND indexname NOT LIKE '%_pkey'",
    )
    .pluck()
    .all();
  return { version: version(store), tables, indexes: indexes.sort() };
}

function version(store: Store): number {
  return store.db.prepare<[], number>('SELECT max(version) FROM schema_migrations').pluck().get()!;
}

describe('the SQLite and PostgreSQL schemas', () => {
  const sqlite = new TestStores('sqlite');
  const postgres = new TestStores('postgres');
  afterEach(() => {
    sqlite.cleanup();
    postgres.cleanup();
  });

  it('end at the same version with the same tables, columns and indexes', () => {
    const fromSqlite = sqliteSchema(sqlite.open());
    const fromPostgres = postgresSchema(postgres.open());
    expect(fromPostgres).toEqual(fromSqlite);
    expect(fromSqlite.version).toBe(Math.max(...MIGRATIONS.map((m) => m.version)));
    expect(fromPostgres.version).toBe(Math.max(...POSTGRES_MIGRATIONS.map((m) => m.version)));
    expect(Object.keys(fromSqlite.tables)).toContain('fingerprints');
  });
});
