import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { StoreConfig } from '../../src/config/storeConfigSchema.js';
import { openStoreFromConfig } from '../../src/store/openStoreFromConfig.js';
import { PostgresDatabase } from '../../src/store/sql/PostgresDatabase.js';
import type { Store, StoreOptions } from '../../src/store/Store.js';
import { tempDir } from './tempDir.js';

/** The stores every store test runs against: the contract both must keep. */
export const STORE_KINDS = ['sqlite', 'postgres'] as const;
export type StoreKind = (typeof STORE_KINDS)[number];

/** The PostgreSQL of the tests (CI's service, the developers' local one). */
export const TEST_POSTGRES_URL =
  process.env.ERP_SYNC_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/**
 * Fresh, empty stores of one kind for a test: a file in a temporary folder, or a schema of its
 * own in the test database. cleanup() closes what the test opened and deletes them all.
 */
export class TestStores {
  readonly #opened: Store[] = [];
  readonly #cleanups: (() => void)[] = [];

  constructor(readonly kind: StoreKind) {}

  /** A new store location, not created until a store is opened on it. */
  location(): StoreConfig {
    if (this.kind === 'sqlite') {
      const { dir, cleanup } = tempDir();
      this.#cleanups.push(cleanup);
      return { path: join(dir, 'store.db') };
    }
    const schema = newTestSchema();
    this.#cleanups.push(() => dropTestSchema(schema));
    return { type: 'postgres', url: TEST_POSTGRES_URL, schema };
  }

  /** Opens a store on `location` (a new one by default); another open of it is another connection. */
  open(options: StoreOptions = {}, location: StoreConfig = this.location()): Store {
    const store = openStoreFromConfig(location, options);
    this.#opened.push(store);
    return store;
  }

  /** Every step runs even when one fails (a store that will not close still has its schema dropped). */
  cleanup(): void {
    const failures: unknown[] = [];
    const attempt = (step: () => void) => {
      try {
        step();
      } catch (error) {
        failures.push(error);
      }
    };
    while (this.#opened.length) {
      const store = this.#opened.pop()!;
      attempt(() => store.close());
    }
    while (this.#cleanups.length) attempt(this.#cleanups.pop()!);
    if (failures.length) throw failures[0];
  }
}

/** What a test schema is called: `test_`, its creation time (ms, base 36), a random part. */
const TEST_SCHEMA = /^test_([0-9a-z]{8,9})_[0-9a-f]{8}$/;
/** A schema older than this belongs to no running test: its process was killed before cleanup. */
export const STALE_TEST_SCHEMA_MS = 60 * 60 * 1000;

/** A fresh schema name for a test; the first one of a process sweeps stale ones away. */
export function newTestSchema(): string {
  sweepOnce();
  return `test_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
}

export function dropTestSchema(schema: string): void {
  withTestDatabase((db) => db.exec(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`));
}

let swept = false;
function sweepOnce(): void {
  if (swept) return;
  swept = true;
  dropStaleTestSchemas(Date.now());
}

/**
 * Drops the `test_*` schemas created more than an hour before `now`: a test process killed
 * (SIGKILL, a crashed worker) never ran its afterEach. The age is in the name; older names
 * (`test_` and 12 hex digits) are aged by their first migration. Another run may drop the same
 * schema at the same moment: a drop that fails is left to the next sweep. `among` limits the
 * sweep to those names (the sweep's own test, which must not drop other files' schemas).
 */
export function dropStaleTestSchemas(now: number, among?: readonly string[]): string[] {
  const dropped: string[] = [];
  withTestDatabase((db) => {
    const names = db
      .prepare<[], string>(`SELECT nspname FROM pg_namespace WHERE nspname LIKE 'test\\_%' ORDER BY 1`)
      .pluck()
      .all();
    for (const schema of names) {
      if (among && !among.includes(schema)) continue;
      const created = createdAt(db, schema);
      if (created === undefined || now - created < STALE_TEST_SCHEMA_MS) continue;
      try {
        db.exec(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        dropped.push(schema);
      } catch {
        // dropped or locked by a concurrent sweep
      }
    }
  });
  return dropped;
}

function createdAt(db: PostgresDatabase, schema: string): number | undefined {
  const named = TEST_SCHEMA.exec(schema);
  if (named) return parseInt(named[1]!, 36);
  if (!/^test_[0-9a-f]{12}$/.test(schema)) return undefined; // not one of ours
  try {
    const first = db
      .prepare<[], string | null>(`SELECT min(applied_at) FROM "${schema}".schema_migrations`)
      .pluck()
      .get();
    const at = first ? Date.parse(first) : NaN;
    return Number.isFinite(at) ? at : undefined;
  } catch {
    return undefined; // no migrations table: not a store, or not one of ours
  }
}

function withTestDatabase(fn: (db: PostgresDatabase) => void): void {
  const db = new PostgresDatabase({ url: TEST_POSTGRES_URL, schema: 'public' });
  try {
    fn(db);
  } finally {
    db.close();
  }
}
