import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { runStock } from '../../../src/sync/push/stock.js';
import { bulkSku, createHarness, type Harness } from '../../support/syncHarness.js';

const RUN = { full: false, dryRun: false };
let harness: Harness | undefined;

afterEach(async () => {
  harness?.sandbox.setFaults(null);
  await harness?.close();
  harness = undefined;
});

const rows = (count: number, quantity: number) =>
  Array.from({ length: count }, (_, i) => ({ sku: bulkSku(i + 1), quantity }));

async function until(condition: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('stock pipeline under overlap and crashes', () => {
  it('never leaves an older value when two runs overlap', async () => {
    harness = await createHarness({ extraProducts: 400, sync: { batchSize: 50, concurrency: 2 } });
    harness.writeStock(rows(400, 5));
    harness.sandbox.setFaults('latency=40-80');
    const early = runStock(await harness.context(), RUN);
    // The first run holds the lease and is sending; the ERP now says 7 and a second run starts.
    await until(() => harness!.writes().length >= 1);
    // In reverse order: without serialisation the late run would reach the last SKUs first and
    // the early run would then overwrite them with its older value.
    harness.writeStock(rows(400, 7).reverse());
    const late = runStock(await harness.context(), RUN);
    const [a, b] = await Promise.all([early, late]);
    harness.sandbox.setFaults(null);

    expect(a.error).toBeUndefined();
    expect(b.error).toBeUndefined();
    const ctx = await harness.context();
    const platform = await harness.platform(ctx);
    for (let n = 1; n <= 400; n++) expect(platform.get(bulkSku(n))?.stock).toBe(7);
    // And the store agrees: the next run has nothing to send.
    harness.sandbox.requestLog.clear();
    await runStock(ctx, RUN);
    expect(harness.writes()).toEqual([]);
  });

  it('does not send a value over one a later scan already had confirmed (generation guard)', async () => {
    harness = await createHarness({ extraProducts: 3 });
    harness.writeStock(rows(3, 5));
    const ctx = await harness.context();
    // As if a later, overlapping scan (the lease normally prevents this) had begun right after this
    // run's and confirmed 9 for SKU 2 before this run's batch went out: it takes the next generation.
    const { generations } = ctx.store;
    const next = generations.next.bind(generations);
    generations.next = (name) => {
      generations.next = next;
      const taken = next(name);
      ctx.store.fingerprints.putMany('stock', [{ key: bulkSku(2), hash: 'q=9', generation: next(name) }]);
      return taken;
    };
    const summary = await runStock(ctx, RUN);
    expect(summary.extra.superseded).toBe(1);
    const bodies = harness.writes().map((entry) => (entry.body as { items: unknown[] }).items);
    expect(bodies).toEqual([
      [
        { sku: bulkSku(1), quantity: 5 },
        { sku: bulkSku(3), quantity: 5 },
      ],
    ]);
    expect(ctx.store.fingerprints.getMany('stock', [bulkSku(2)]).get(bulkSku(2))?.hash).toBe('q=9');
  });

  it('converges after the process is killed in the middle of a run', async () => {
    harness = await createHarness({ extraProducts: 1000, sync: { batchSize: 50, concurrency: 2 } });
    harness.writeStock(rows(1000, 21));
    const configFile = harness.configFile({
      api: { baseUrl: harness.sandbox.url, apiKey: harness.sandbox.keys.primary },
      sync: { batchSize: 50, concurrency: 2 },
    });
    harness.sandbox.setFaults('latency=100-150');
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'src/cli/main.ts', 'run-once', '--only', 'stock', '--config', configFile],
      { cwd: process.cwd(), stdio: 'ignore' },
    );
    const exited = new Promise((resolve) => child.once('exit', resolve));
    await until(() => harness!.writes().length >= 3, 20_000);
    child.kill('SIGKILL');
    await exited;
    harness.sandbox.setFaults(null);
    const sentBeforeKill = harness.writes().length;
    expect(sentBeforeKill).toBeLessThan(20);

    // The rerun takes over the dead run's lease at once and finishes the job.
    const ctx = await harness.context();
    const rerun = await runStock(ctx, RUN);
    expect(rerun.error).toBeUndefined();
    expect(rerun.applied + rerun.unchanged).toBe(1000);
    const platform = await harness.platform(ctx);
    for (let n = 1; n <= 1000; n++) expect(platform.get(bulkSku(n))?.stock).toBe(21);
    harness.sandbox.requestLog.clear();
    await runStock(await harness.context(), RUN);
    expect(harness.writes()).toEqual([]);
  }, 60_000);

  it('stops cleanly on SIGINT: in-flight batches recorded, a one-line reason, no stack, and the rerun finishes', async () => {
    harness = await createHarness({ extraProducts: 600, sync: { batchSize: 50, concurrency: 2 } });
    harness.writeStock(rows(600, 8));
    const configFile = harness.configFile({
      api: { baseUrl: harness.sandbox.url, apiKey: harness.sandbox.keys.primary },
      sync: { batchSize: 50, concurrency: 2 },
      logLevel: 'info',
    });
    harness.sandbox.setFaults('latency=100-150');
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'src/cli/main.ts', 'run-once', '--only', 'stock', '--config', configFile],
      { cwd: process.cwd() },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    await until(() => harness!.writes().length >= 2, 20_000);
    child.kill('SIGINT');
    const code = await exited;
    harness.sandbox.setFaults(null);

    expect(code).toBe(1);
    expect(stdout).toMatch(
      /^stock: internal: interrupted \(SIGINT\/SIGTERM\); what was not sent is sent next run$/m,
    );
    expect(stderr).not.toMatch(/\\n\s+at /); // no stack in the JSON log lines either
    const sent = harness.writes().length;
    expect(sent).toBeLessThan(12);
    // What the platform confirmed before the stop was recorded: the rerun sends only the rest.
    const ctx = await harness.context();
    const rerun = await runStock(ctx, RUN);
    expect(rerun).toMatchObject({ unchanged: sent * 50, applied: 600 - sent * 50 });
    const platform = await harness.platform(ctx);
    for (let n = 1; n <= 600; n++) expect(platform.get(bulkSku(n))?.stock).toBe(8);
  }, 60_000);
});
