import { DEFAULT_STORE_PASSWORD_ENV, type StoreConfig } from '../config/storeConfigSchema.js';
import { openPostgresStore } from './openPostgresStore.js';
import { redactUrl } from './sql/PostgresDatabase.js';
import { openStore, type Store, type StoreOptions } from './Store.js';

export interface OpenStoreFromConfigOptions extends StoreOptions {
  /** Where the PostgreSQL password is read (process.env). */
  env?: NodeJS.ProcessEnv;
}

/**
 * Opens the store a configuration names: every command and the daemon open it here. With
 * `mustExist` (commands that only look) nothing is created: a missing store is an error.
 */
export function openStoreFromConfig(config: StoreConfig, options: OpenStoreFromConfigOptions = {}): Store {
  const { env = process.env, ...storeOptions } = options;
  if (config.type !== 'postgres') return openStore(config.path, storeOptions);
  return openPostgresStore(
    {
      url: config.url,
      schema: config.schema,
      password: env[config.passwordEnv ?? DEFAULT_STORE_PASSWORD_ENV],
    },
    storeOptions,
  );
}

/** The configured store as it may be shown (status, errors): the file, or the URL without password. */
export function describeStoreConfig(config: StoreConfig): string {
  return config.type === 'postgres' ? `${redactUrl(config.url)} (schema ${config.schema})` : config.path;
}
