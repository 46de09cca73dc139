import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { createApiClient, type ApiClient } from '../../src/api/createApiClient.js';
import { parseConfig, type Config } from '../../src/config.js';
import { openErpAdapter } from '../../src/erp/createErpAdapter.js';
import { TrytonClient } from '../../src/erp/tryton/TrytonClient.js';
import { silentLogger } from '../../src/logger.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/startSandbox.js';
import { openStoreFromConfig } from '../../src/store/index.js';
import type { Store } from '../../src/store/Store.js';
import type { SyncContext } from '../../src/sync/frame/types.js';
import { startTryton, TRYTON_SEED, type TrytonServer } from './trytonServer.js';

/** A real Tryton (seeded), the sandbox with the seed's 20 SKUs as products, and a config between them. */
export interface TrytonWorld {
  tryton: TrytonServer;
  sandbox: Sandbox;
  dir: string;
  /** JSON config for `erp-sync --config` (the password comes from env TRYTON_PASSWORD). */
  configPath: string;
  config: Config;
  /** The test's own clients: the platform and Tryton. */
  api: ApiClient;
  rpc: TrytonClient;
  /** Platform product id by SKU. */
  productIds: Map<string, number>;
  env: Record<string, string>;
  context(erp?: Record<string, unknown>): Promise<SyncContext>;
  close(): Promise<void>;
}

/** `seed: 'demo'`: the sandbox's demo data too (customers with addresses, orders of other SKUs). */
export async function startTrytonWorld(
  tryton: TrytonServer,
  options: { seed?: 'demo' | 'empty' } = {},
): Promise<TrytonWorld> {
  const sandbox = await startSandbox({ seed: options.seed ?? 'empty' });
  const dir = await mkdtemp(join(tmpdir(), 'tryton-it-'));
  const api = createApiClient({ baseUrl: sandbox.url, apiKey: sandbox.keys.primary, retries: 0 });
  const productIds = new Map<string, number>();
  for (const sku of TRYTON_SEED.skus) {
    const product = await api.products.create({
      name: `Produs ${sku}`,
      sku,
      status: 'active',
      price: 1,
      stock_quantity: 0,
    });
    productIds.set(sku, product.id);
  }
  const raw = {
    api: {
      baseUrl: sandbox.url,
      apiKey: sandbox.keys.primary,
      timeoutMs: 5_000,
      retries: 2,
      deadlineMs: 20_000,
    },
    erp: {
      type: 'tryton',
      url: tryton.url,
      database: tryton.database,
      user: tryton.user,
      warehouses: ['WH', 'WH2'],
    },
    store: { path: join(dir, 'store.db') },
    orders: { concurrency: 1, oversellGuard: { enabled: false } },
    log: { level: 'silent' },
  };
  const configPath = join(dir, 'config.json');
  await writeFile(configPath, JSON.stringify(raw));
  const withPassword = (erp: Record<string, unknown> = {}) => ({
    ...raw,
    erp: { ...raw.erp, password: tryton.password, ...erp },
  });
  const config = parseConfig(withPassword());
  const rpc = new TrytonClient({
    url: tryton.url,
    database: tryton.database,
    user: tryton.user,
    password: tryton.password,
    context: { company: TRYTON_SEED.companyId },
    logger: silentLogger(),
  });
  const opened: { store: Store; close: () => Promise<void> }[] = [];
  return {
    tryton,
    sandbox,
    dir,
    configPath,
    config,
    api,
    rpc,
    productIds,
    env: { TRYTON_PASSWORD: tryton.password },
    async context(erp = {}) {
      const cfg = parseConfig(withPassword(erp));
      const client = createApiClient({
        baseUrl: cfg.api.baseUrl,
        apiKey: cfg.api.apiKey,
        timeoutMs: cfg.api.timeoutMs,
        retries: cfg.api.retries,
        deadlineMs: cfg.api.deadlineMs,
      });
      const store = openStoreFromConfig(cfg.store);
      const adapter = await openErpAdapter(cfg.erp, silentLogger());
      opened.push({
        store,
        close: async () => {
          await adapter.close();
          await client.close();
        },
      });
      return {
        client,
        erp: adapter,
        store,
        config: cfg,
        logger: silentLogger(),
        requests: { total: 0, writes: 0 },
      };
    },
    async close() {
      for (const item of opened) {
        item.store.close();
        await item.close();
      }
      await rpc.close();
      await api.close();
      await sandbox.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export { TRYTON_SEED, startTryton };

/**
 * For a test file: one Tryton and one world on it, started before the file's tests (the world is
 * handed to `use`) and stopped after them.
 */
export function useTrytonWorld(
  use: (world: TrytonWorld) => void,
  options: { seed?: 'demo' | 'empty' } = {},
): void {
  let tryton: TrytonServer | undefined;
  let world: TrytonWorld | undefined;
  beforeAll(async () => {
    tryton = await startTryton();
    world = await startTrytonWorld(tryton, options);
    use(world);
  }, 600_000);
  afterAll(async () => {
    await world?.close();
    await tryton?.stop();
  });
}
