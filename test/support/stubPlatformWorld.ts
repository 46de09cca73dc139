import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApiClient, type ApiClient } from '../../src/api/createApiClient.js';
import { parseConfig } from '../../src/config.js';
import { openErpAdapter } from '../../src/erp/createErpAdapter.js';
import { silentLogger } from '../../src/logger.js';
import { openStoreFromConfig } from '../../src/store/index.js';
import type { Store } from '../../src/store/Store.js';
import type { SyncContext } from '../../src/sync/frame/types.js';
import {
  startStubOrderPlatform,
  type StubOrderPlatform,
  type StubOrderPlatformOptions,
} from './stubOrderPlatform.js';

/** The order pipelines pointed at a stub order platform, with a file ERP and a store in a temp dir. */
export interface StubPlatformWorld {
  platform: StubOrderPlatform;
  dir: string;
  erpDir: string;
  /** A fresh context (new store handle and client) on the same store file and ERP folder. */
  context(): Promise<SyncContext>;
  close(): Promise<void>;
}

export async function startStubPlatformWorld(
  options: StubOrderPlatformOptions = {},
): Promise<StubPlatformWorld> {
  const platform = await startStubOrderPlatform(options);
  const dir = await mkdtemp(join(tmpdir(), 'orders-stub-'));
  const erpDir = join(dir, 'erp');
  await mkdir(erpDir, { recursive: true });
  const config = parseConfig({
    api: { baseUrl: platform.url, apiKey: 'cms_stub_key_0123456789', retries: 1, timeoutMs: 2_000 },
    erp: { type: 'file', path: erpDir },
    store: { path: join(dir, 'store.db') },
    log: { level: 'silent' },
  });
  const opened: { store: Store; client: ApiClient }[] = [];
  return {
    platform,
    dir,
    erpDir,
    async context() {
      const client = createApiClient({
        baseUrl: config.api.baseUrl,
        apiKey: config.api.apiKey,
        timeoutMs: config.api.timeoutMs,
        retries: config.api.retries,
      });
      const store = openStoreFromConfig(config.store);
      opened.push({ store, client });
      const erp = await openErpAdapter(config.erp, silentLogger());
      return { client, erp, store, config, logger: silentLogger() };
    },
    async close() {
      for (const { store, client } of opened) {
        store.close();
        await client.close();
      }
      await platform.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
