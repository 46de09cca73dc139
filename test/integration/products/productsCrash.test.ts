import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeConfigFile } from '../../../src/config.js';
import type { RequestLogEntry, Sandbox } from '../../../src/sandbox/index.js';
import { createProductsWorld, type ProductRow, type ProductsWorld } from '../../support/productsWorld.js';

const CLI = join(import.meta.dirname, '..', '..', '..', 'src', 'cli', 'main.ts');
let world: ProductsWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/**
 * `erp-sync run-once --only products` in a child process, SIGKILLed when `shouldKill` says so
 * (polled) when given.
 */
function runChild(
  configPath: string,
  shouldKill?: (elapsedMs: number) => boolean,
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
    const started = Date.now();
    const timer =
      shouldKill === undefined
        ? undefined
        : setInterval(() => {
            if (shouldKill(Date.now() - started)) child.kill('SIGKILL');
          }, 20);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearInterval(timer);
      // Exit 1: the run ended with an error (retries spent under faults); the next run redoes it.
      const acceptable = signal === 'SIGKILL' || code === 0 || (code === 1 && shouldKill !== undefined);
      if (!acceptable) reject(new Error(`child failed (${code ?? signal}): ${stderr}`));
      else resolve({ killed: signal === 'SIGKILL', code });
    });
  });
}

/**
 * Once the sandbox has processed `count` product creates, every later create stalls (processed,
 * never answered): the child is held mid-way through its creates however fast or slow the machine
 * is, so a kill then lands among them for sure; the random count varies where.
 */
function holdAfterCreates(sandbox: Sandbox, count: number): { held(): boolean; stop(): void } {
  let seen = 0;
  let held = false;
  const isCreate = (entry: RequestLogEntry) => entry.method === 'POST' && entry.path === '/api/v2/products';
  const stop = sandbox.requestLog.onEntry((entry) => {
    if (held || !isCreate(entry)) return;
    seen += 1;
    if (seen < count) return;
    held = true;
    sandbox.setFaults('stall_rate=1,only=POST /products');
  });
  return { held: () => held, stop };
}

const random = (below: number) => Math.floor(Math.random() * below);

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
      store: harness.config.store,
      sync: { concurrency: 4 },
      products: { enabled: true },
      log: { level: 'silent' },
    });
    const faults = 'drop_rate=0.3,latency=10-40,only=POST /products';
    let killedMidCreates = 0;
    for (let round = 0; round < 6; round++) {
      harness.sandbox.setFaults(faults);
      if (round % 2 === 0) {
        // Held after a random number of creates, killed there: the first round has 80 to make,
        // so at least that kill lands among them.
        const hold = holdAfterCreates(harness.sandbox, 1 + random(15));
        const result = await runChild(configPath, () => hold.held());
        hold.stop();
        if (result.killed) killedMidCreates += 1;
      } else {
        // At a random time: start-up, reading, creating or recording, wherever it falls.
        const at = 300 + random(2000);
        await runChild(configPath, (elapsed) => elapsed >= at);
      }
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
    expect(killedMidCreates).toBeGreaterThan(0);
  }, 90_000);
});
