import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { runCatalog } from '../../../src/sync/catalog/catalog.js';
import { runPrices } from '../../../src/sync/push/prices.js';
import { runStock } from '../../../src/sync/push/stock.js';
import type { RunOptions, RunSummary, SyncContext } from '../../../src/sync/frame/types.js';
import { CLI_ENTRY, PROJECT_ROOT } from '../../support/cli.js';
import { bulkSku, createHarness, type Harness } from '../../support/syncHarness.js';

const RUN = { full: false, dryRun: false };
const COUNT = 20;
let harness: Harness | undefined;

afterEach(async () => {
  harness?.sandbox.setFaults(null);
  await harness?.close();
  harness = undefined;
});

async function until(condition: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** What differs between the two push pipelines for these sequences. */
interface Case {
  pipeline: 'stock' | 'prices';
  route: string;
  run: (ctx: SyncContext, options: RunOptions) => Promise<RunSummary>;
  write: (h: Harness, value: number) => void;
  /** The value the platform holds for SKU n. */
  read: (platform: Awaited<ReturnType<Harness['platform']>>, n: number) => number | null | undefined;
}

const CASES: Case[] = [
  {
    pipeline: 'stock',
    route: 'PATCH /products/stock/bulk',
    run: runStock,
    write: (h, value) =>
      h.writeStock(Array.from({ length: COUNT }, (_, i) => ({ sku: bulkSku(i + 1), quantity: value }))),
    read: (platform, n) => platform.get(bulkSku(n))?.stock,
  },
  {
    pipeline: 'prices',
    route: 'PATCH /products/prices/bulk',
    run: runPrices,
    write: (h, value) =>
      h.writePrices(Array.from({ length: COUNT }, (_, i) => ({ sku: bulkSku(i + 1), price: value }))),
    read: (platform, n) => platform.get(bulkSku(n))?.price,
  },
];

/** One context per harness to look at the platform (polling opens no new store connections). */
const viewers = new WeakMap<Harness, SyncContext>();

async function platformValues(h: Harness, c: Case): Promise<(number | null | undefined)[]> {
  if (!viewers.has(h)) viewers.set(h, await h.context());
  const platform = await h.platform(viewers.get(h)!);
  return Array.from({ length: COUNT }, (_, i) => c.read(platform, i + 1));
}

/** A -> B (its answer lost, but applied) -> A again: A must be sent, and then nothing. */
async function backToA(h: Harness, c: Case): Promise<void> {
  expect(await platformValues(h, c)).toEqual(Array(COUNT).fill(8));
  c.write(h, 5);
  h.sandbox.requestLog.clear();
  const back = await c.run(await h.context(), RUN);
  expect(back).toMatchObject({ read: COUNT, unchanged: 0, sent: COUNT, applied: COUNT, writeRequests: 1 });
  expect(await platformValues(h, c)).toEqual(Array(COUNT).fill(5));
  // Known again: the unchanged rerun sends nothing.
  expect(await c.run(await h.context(), RUN)).toMatchObject({ unchanged: COUNT, sent: 0, writeRequests: 0 });
}

describe('a push whose answer was lost is sent again (invariant 3 covers the send)', () => {
  for (const c of CASES) {
    it(`${c.pipeline}: a bulk applied but its answer dropped leaves the items unknown`, async () => {
      harness = await createHarness({ extraProducts: COUNT });
      c.write(harness, 5);
      expect(await c.run(await harness.context(), RUN)).toMatchObject({ applied: COUNT });

      c.write(harness, 8);
      // The platform applies every bulk of this route, then the connection drops mid-answer.
      harness.sandbox.setFaults(`drop_rate=1,only=${c.route}`);
      const lost = await c.run(await harness.context(), RUN);
      harness.sandbox.setFaults(null);
      expect(lost).toMatchObject({ sent: COUNT, applied: 0, failed: COUNT });
      expect(lost.error?.kind).toBe('retryable');
      expect(harness.sandbox.requestLog.entries().filter((e) => e.fault === 'drop').length).toBeGreaterThan(
        0,
      );
      // An unconfirmed value is no acknowledged one: the catalog neither compares nor counts it.
      expect((await runCatalog(await harness.context(), RUN)).extra.changedOnPlatform).toBe(0);
      await backToA(harness, c);
    }, 60_000);

    it(`${c.pipeline}: a run killed while its bulk is in flight leaves the items unknown`, async () => {
      harness = await createHarness({ extraProducts: COUNT });
      c.write(harness, 5);
      expect(await c.run(await harness.context(), RUN)).toMatchObject({ applied: COUNT });

      c.write(harness, 8);
      const configFile = harness.configFile({
        api: { baseUrl: harness.sandbox.url, apiKey: harness.sandbox.keys.primary, timeoutMs: 60_000 },
      });
      // The platform applies the bulk and never answers; the run is killed while it waits.
      harness.sandbox.setFaults(`stall_rate=1,only=${c.route}`);
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', CLI_ENTRY, 'run-once', '--only', c.pipeline, '--config', configFile],
        { cwd: PROJECT_ROOT, stdio: 'ignore' },
      );
      const exited = new Promise((resolve) => child.once('exit', resolve));
      try {
        await until(async () => (await platformValues(harness!, c)).every((value) => value === 8), 40_000);
      } finally {
        child.kill('SIGKILL');
        await exited;
      }
      harness.sandbox.setFaults(null);
      await backToA(harness, c);
    }, 90_000);
  }
});
