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
    const schema = `test_${randomBytes(6).toString('hex')}`;
    this.#cleanups.push(() => dropSchema(schema));
    return { type: 'postgres', url: TEST_POSTGRES_URL, schema };
  }

  /** Opens a store on `location` (a new one by default); another open of it is another connection. */
  open(options: StoreOptions = {}, location: StoreConfig = this.location()): Store {
    const store = openStoreFromConfig(location, options);
    this.#opened.push(store);
    return store;
  }

  cleanup(): void {
    while (this.#opened.length) this.#opened.pop()!.close();
    while (this.#cleanups.length) this.#cleanups.pop()!();
  }
}

function dropSchema(schema: string): void {
  const db = new PostgresDatabase({ url: TEST_POSTGRES_URL, schema: 'public' });
  try {
    db.exec(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    db.close();
  }
}
