import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfig, writeConfigFile, type Config } from '../../src/config.js';
import { silentLogger } from '../../src/logger.js';
import { startSandbox, type RequestLogEntry } from '../../src/sandbox/index.js';
import { closeSyncContext, createSyncContext } from '../../src/sync/context.js';
import type { SyncContext } from '../../src/sync/frame/types.js';

export type Sandbox = Awaited<ReturnType<typeof startSandbox>>;

export interface StockRow {
  sku: string;
  quantity: number | string;
  variant_sku?: string;
}

export interface PriceRow {
  sku: string;
  price?: number | string;
  sale_price?: number | string;
  cost_price?: number | string;
  vat_rate?: number | string;
  variant_sku?: string;
}

export const bulkSku = (n: number): string => `BULK-${String(n).padStart(6, '0')}`;

/** Writes a CSV atomically (temporary file, then rename), as an ERP export should. */
export function writeCsv(path: string, columns: string[], rows: Record<string, unknown>[]): void {
  const lines = [columns.join(','), ...rows.map((row) => columns.map((c) => String(row[c] ?? '')).join(','))];
  writeFileSync(`${path}.tmp`, `${lines.join('\n')}\n`);
  renameSync(`${path}.tmp`, path);
}

export interface Harness {
  sandbox: Sandbox;
  dir: string;
  config: Config;
  /** A context over the harness's store file (a fresh one per call: what a new process would build). */
  context(overrides?: Partial<Config['sync']>, erp?: Partial<Config['erp']>): Promise<SyncContext>;
  writeStock(rows: StockRow[]): void;
  writePrices(rows: PriceRow[]): void;
  /**
   * Writes DIR/config.yaml for a child-process run over the harness's folder and store (the API
   * address and key come from the environment unless given in `api`); returns its path.
   */
  configFile(options?: {
    erpPath?: string;
    logLevel?: string;
    api?: Record<string, unknown>;
    sync?: Record<string, unknown>;
  }): string;
  /** Write requests (not GET) in the sandbox's log since the last clear. */
  writes(): RequestLogEntry[];
  /** The platform's view through the API: key -> { stock, price, ... }. */
  platform(ctx: SyncContext): Promise<
    Map<
      string,
      {
        id: number;
        stock: number | null | undefined;
        price: number | null | undefined;
        salePrice: number | null | undefined;
        vatRate: number | null | undefined;
      }
    >
  >;
  close(): Promise<void>;
}

export async function createHarness(options: {
  seed?: 'demo' | 'empty';
  extraProducts?: number;
  sync?: Record<string, unknown>;
  /** The sandbox's body limit in bytes (default 1 MiB). */
  bodyLimit?: number;
  /** The most items the sandbox takes in one bulk request (default 1000). */
  bulkMax?: number;
}): Promise<Harness> {
  const sandbox = await startSandbox({
    port: 0,
    seed: options.seed ?? 'empty',
    recordBodies: true,
    extraProducts: options.extraProducts ?? 0,
    ...(options.bodyLimit ? { bodyLimit: options.bodyLimit } : {}),
    ...(options.bulkMax ? { bulkMax: options.bulkMax } : {}),
  });
  const dir = mkdtempSync(join(tmpdir(), 'erp-sync-sync-'));
  const contexts: SyncContext[] = [];
  const config = parseConfig({
    api: { baseUrl: sandbox.url, apiKey: sandbox.keys.primary, retries: 2, timeoutMs: 10_000 },
    erp: { type: 'file', path: dir, stableMs: 0 },
    store: { path: join(dir, 'erp-sync.db') },
    sync: { batchSize: 100, concurrency: 4, ...options.sync },
    // The oversell guard (orders) is exercised on its own; here stock must equal the files.
    orders: { oversellGuard: { enabled: false } },
    log: { level: 'silent' },
  });
  writeCsv(join(dir, 'stock.csv'), ['sku', 'quantity', 'variant_sku'], []);
  writeCsv(
    join(dir, 'prices.csv'),
    ['sku', 'price', 'sale_price', 'cost_price', 'vat_rate', 'variant_sku'],
    [],
  );
  return {
    sandbox,
    dir,
    config,
    async context(overrides = {}, erp = {}) {
      const ctx = await createSyncContext(
        {
          ...config,
          sync: { ...config.sync, ...overrides },
          erp: { ...config.erp, ...erp } as Config['erp'],
        },
        silentLogger(),
      );
      contexts.push(ctx);
      return ctx;
    },
    writeStock(rows) {
      writeCsv(
        join(dir, 'stock.csv'),
        ['sku', 'quantity', 'variant_sku'],
        rows as unknown as Record<string, unknown>[],
      );
    },
    writePrices(rows) {
      writeCsv(
        join(dir, 'prices.csv'),
        ['sku', 'price', 'sale_price', 'cost_price', 'vat_rate', 'variant_sku'],
        rows as unknown as Record<string, unknown>[],
      );
    },
    configFile(options = {}) {
      const file = join(dir, 'config.yaml');
      const config: Record<string, unknown> = {
        erp: { type: 'file', path: options.erpPath ?? dir, stableMs: 0 },
        store: { path: join(dir, 'erp-sync.db') },
        log: { level: options.logLevel ?? 'silent' },
      };
      if (options.api) config.api = options.api;
      if (options.sync) config.sync = options.sync;
      return writeConfigFile(file, config);
    },
    writes() {
      return sandbox.requestLog.entries().filter((entry) => entry.method !== 'GET');
    },
    async platform(ctx) {
      const out = new Map();
      for await (const product of ctx.client.products.iterate()) {
        out.set(product.sku, {
          id: product.id,
          stock: product.stock_quantity,
          price: product.price,
          salePrice: product.sale_price,
          vatRate: product.vat_rate,
        });
        for (const variant of product.variants ?? []) {
          out.set(`${product.sku}/${variant.sku}`, {
            id: product.id,
            stock: variant.stock_quantity,
            price: variant.price,
            salePrice: variant.sale_price,
            vatRate: product.vat_rate,
          });
        }
      }
      return out;
    },
    async close() {
      for (const ctx of contexts) await closeSyncContext(ctx).catch(() => undefined);
      await sandbox.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
