import { migrate } from './migrate.js';
import { POSTGRES_MIGRATIONS } from './postgresMigrations.js';
import { PostgresDatabase, redactUrl } from './sql/PostgresDatabase.js';
import { Store, type StoreOptions } from './Store.js';
import { StoreError, StoreNotFoundError } from './StoreError.js';

export interface PostgresStoreLocation {
  url: string;
  schema: string;
  password?: string | undefined;
}

/**
 * Opens (creating the schema if needed) the store in a PostgreSQL schema, migrated. Its leases
 * run on the database's clock (unless `options.now` is given): hosts' clocks differ, the one
 * database's clock is the same for every replica that compares an expiry.
 */
export function openPostgresStore(location: PostgresStoreLocation, options: StoreOptions = {}): Store {
  const where = `${redactUrl(location.url)} (schema ${location.schema})`;
  let db: PostgresDatabase;
  try {
    db = new PostgresDatabase({
      url: location.url,
      password: location.password,
      schema: location.schema,
      ...(options.busyTimeoutMs === undefined ? {} : { timeoutMs: options.busyTimeoutMs }),
    });
  } catch (error) {
    throw new StoreError(`cannot open the store at ${where}: ${(error as Error).message}`, { cause: error });
  }
  try {
    const exists = db
      .prepare<[string], { found: string | null }>('SELECT to_regclass(?) AS found')
      .get(`"${location.schema}".schema_migrations`)!.found;
    if (!exists && options.mustExist) {
      throw new StoreNotFoundError(
        `no store at ${where}: nothing has run with this store yet, or the URL or schema is wrong`,
      );
    }
    if (!exists) db.transaction(() => db.exec(`CREATE SCHEMA IF NOT EXISTS "${location.schema}"`));
    const applied = migrate(db, POSTGRES_MIGRATIONS);
    if (applied.length) options.logger?.info({ store: where, applied }, 'store migrated');
    return new Store(db, where, { ...options, now: options.now ?? databaseClock(db) });
  } catch (error) {
    db.close();
    if (error instanceof StoreError) throw error;
    throw new StoreError(`cannot prepare the store at ${where}: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

/** Deletes the store: its schema and every table in it (`erp-sync store reset`). */
export function dropPostgresStore(store: Store, schema: string): void {
  store.db.transaction(() => store.db.exec(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`));
}

/** Milliseconds since the epoch by the database server's clock. */
function databaseClock(db: PostgresDatabase): () => number {
  const now = db
    .prepare<[], number>('SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint AS now')
    .pluck();
  return () => now.get()!;
}
