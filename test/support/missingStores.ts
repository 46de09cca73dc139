import { join } from 'node:path';
import { writeConfigFile } from '../../src/config.js';
import type { StoreConfig } from '../../src/config/storeConfigSchema.js';
import { TestStores } from './testStores.js';

/**
 * Two configurations whose store does not exist (an SQLite file in a folder that does not exist,
 * and a PostgreSQL schema not created), for the commands that only look and must create neither.
 * cleanup() drops the schema should a command have created it.
 */
export function missingStores(dir: string): {
  file: string;
  location: StoreConfig & { type: 'postgres' };
  sqliteConfig: string;
  postgresConfig: string;
  postgres: TestStores;
} {
  const postgres = new TestStores('postgres');
  const file = join(dir, 'missing', 'erp-sync.db');
  const location = postgres.location();
  if (location.type !== 'postgres') throw new Error('a postgres location');
  const [sqliteConfig, postgresConfig] = [{ path: file }, location].map((store, i) =>
    writeConfigFile(join(dir, `missing-store-${i}.yaml`), {
      erp: { type: 'file', path: dir, stableMs: 0 },
      store,
      log: { level: 'silent' },
    }),
  );
  return { file, location, sqliteConfig: sqliteConfig!, postgresConfig: postgresConfig!, postgres };
}
