import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApiClient, type ApiClient } from '../../src/api/createApiClient.js';
import { parseConfig, type Config } from '../../src/config.js';
import type { ErpAdapter } from '../../src/erp/ErpAdapter.js';
import { silentLogger } from '../../src/logger.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/startSandbox.js';
import { openStoreFromConfig } from '../../src/store/index.js';
import type { Store } from '../../src/store/Store.js';
import type { SyncContext } from '../../src/sync/frame/types.js';
import { openErpAdapter } from '../../src/erp/createErpAdapter.js';

export interface OrderWorld {
  sandbox: Sandbox;
  dir: string;
  configPath: string;
  config: Config;
  /** A client for the test itself (creating orders, checking the platform). */
  api: ApiClient;
  context(overrides?: Record<string, unknown>): Promise<SyncContext>;
  close(): Promise<void>;
}

export interface WorldOptions {
  ordersOrder?: 'desc' | 'asc';
  seed?: 'demo' | 'empty';
  config?: Record<string, unknown>;
}

export async function startOrderWorld(options: WorldOptions = {}): Promise<OrderWorld> {
  const sandbox = await startSandbox({
    seed: options.seed ?? 'demo',
    ordersOrder: options.ordersOrder ?? 'desc',
  });
  const dir = await mkdtemp(join(tmpdir(), 'orders-it-'));
  const raw = {
    store: { path: join(dir, 'store.db') },
    log: { level: 'silent' },
    ...options.config,
    api: {
      baseUrl: sandbox.url,
      apiKey: sandbox.keys.primary,
      timeoutMs: 2_000,
      retries: 4,
      deadlineMs: 20_000,
      ...(options.config?.api as object | undefined),
    },
    erp: erpOf(options.config?.erp as Record<string, unknown> | undefined, join(dir, 'erp')),
  };
  const config = parseConfig(raw);
  // The adapter refuses a missing drop folder (a mistyped erp.path must not swallow orders).
  if (config.erp.type === 'file') await mkdir(config.erp.path, { recursive: true });
  const configPath = join(dir, 'config.json');
  await writeFile(configPath, JSON.stringify(raw));
  const api = createApiClient({ baseUrl: sandbox.url, apiKey: sandbox.keys.primary, retries: 0 });
  const opened: { store: Store; client: ApiClient; erp?: ErpAdapter }[] = [];
  return {
    sandbox,
    dir,
    configPath,
    config,
    api,
    async context(overrides = {}) {
      const cfg = parseConfig({ ...raw, ...overrides });
      const client = createApiClient({
        baseUrl: cfg.api.baseUrl,
        apiKey: cfg.api.apiKey,
        timeoutMs: cfg.api.timeoutMs,
        retries: cfg.api.retries,
        deadlineMs: cfg.api.deadlineMs,
      });
      const store = openStoreFromConfig(cfg.store);
      const entry: (typeof opened)[number] = { store, client };
      opened.push(entry);
      const erp: ErpAdapter = await openErpAdapter(cfg.erp, silentLogger());
      entry.erp = erp;
      return { client, erp, store, config: cfg, logger: silentLogger() };
    },
    async close() {
      for (const { store, client, erp } of opened) {
        store.close();
        await client.close();
        await erp?.close();
      }
      await api.close();
      await sandbox.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** The file ERP under the world's folder, with overrides; another adapter type as given. */
function erpOf(override: Record<string, unknown> | undefined, path: string): Record<string, unknown> {
  if (override?.type !== undefined && override.type !== 'file') return override;
  return { type: 'file', path, ...override };
}
