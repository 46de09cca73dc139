import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeConfigFile } from '../../../src/config.js';
import { createProductsWorld, type ProductRow, type ProductsWorld } from './productsHarness.js';

const CLI = join(import.meta.dirname, '..', '..', '..', 'src', 'cli', 'main.ts');
let world: ProductsWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** `erp-sync run-once --only products` in a child process, SIGKILLed after `killAfterMs` when given. */
function runChild(
  configPath: string,
  killAfterMs?: number,
): Promise<{ killed: boolean; code: number | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', CLI, 'run-once', '--only', 'products', '--config', configPath],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer =
      killAfterMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      // Exit 1: the run ended with an error (retries spent under faults); the next run redoes it.
      const acceptable = signal === 'SIGKILL' || code === 0 || (code === 1 && killAfterMs !== undefined);
      if (!acceptable) reject(new Error(`child failed (${code ?? signal}): ${stderr}`));
      else resolve({ killed: signal === 'SIGKILL', code });
    });
  });
}

describe('products created while the process is killed at random points', () => {
  it('ends with exactly one platform product per ERP SKU, with lost answers and kills', async () => {
    world = await createProductsWorld('empty');
    const rows: ProductRow[] = Array.from({ length: 80 }, (_, i) => ({
      sku: `KILL-${String(i).padStart(3, '0')}`,
      name: `Killed item ${i}`,
      price: 5 + i,
      vat_rate: 19,
    }));
    world.writeProducts(rows);
    const { harness } = world;
    const configPath = writeConfigFile(join(harness.dir, 'config.yaml'), {
      api: { baseUrl: harness.sandbox.url, apiKey: harness.sandbox.keys.primary, retries: 1 },
      erp: { type: 'file', path: harness.dir, stableMs: 0 },
      store: { path: harness.config.store.path },
      sync: { concurrency: 4 },
      products: { enabled: true },
      log: { level: 'silent' },
    });
    harness.sandbox.setFaults('drop_rate=0.3,latency=10-40,only=POST /products');
    let killed = 0;
    for (let round = 0; round < 6; round++) {
      // Start-up (tsx) takes most of the first second; the kills land in the creates.
      const result = await runChild(configPath, 900 + Math.floor(Math.random() * 1500));
      if (result.killed) killed += 1;
    }
    harness.sandbox.setFaults(null);
    const final = await runChild(configPath);
    expect(final.code).toBe(0);

    const ctx = await world.context();
    const platform = await world.platformBySku(ctx, 'KILL-');
    expect([...platform.keys()].sort()).toEqual(rows.map((row) => row.sku).sort());
    for (const products of platform.values()) expect(products).toHaveLength(1);
    expect(ctx.store.products.creates.countOpen()).toBe(0);
    expect(ctx.store.productLinks.count()).toBe(80);
    expect(killed).toBeGreaterThan(0);
  }, 90_000);
});
