import { rmSync } from 'node:fs';
import type { StoreConfig } from '../config/storeConfigSchema.js';
import { dropPostgresStore } from './openPostgresStore.js';
import { openStoreFromConfig, type OpenStoreFromConfigOptions } from './openStoreFromConfig.js';

/** Deletes the store a configuration names (its file, or its PostgreSQL schema). */
export function deleteStore(config: StoreConfig, options: OpenStoreFromConfigOptions = {}): void {
  if (config.type !== 'postgres') {
    for (const file of [config.path, `${config.path}-wal`, `${config.path}-shm`])
      rmSync(file, { force: true });
    return;
  }
  const store = openStoreFromConfig(config, { ...options, mustExist: true });
  try {
    dropPostgresStore(store, config.schema);
  } finally {
    store.close();
  }
}
