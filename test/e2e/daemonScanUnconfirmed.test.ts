import { describe, expect, it } from 'vitest';
import type { RunSummary } from '../../src/sync/frame/types.js';
import { runCli } from '../support/cli.js';
import { opsGet, platformStock, useDaemonWorlds, type DaemonWorld } from '../support/daemonWorld.js';

let world: DaemonWorld | undefined;
const worlds = useDaemonWorlds();

const SKUS = 12;
const rows = Array.from({ length: SKUS }, (_, i) => ({
  sku: `BULK-${String(i + 1).padStart(6, '0')}`,
  quantity: 300 + i,
}));

describe('a stock scan whose batches the platform refuses', () => {
  it('fails the scan job naming the pipeline, the items and the cause, counts it, and the next scan converges', async () => {
    world = await worlds.start({
      extraProducts: SKUS,
      // Every bulk stock request answers 500/503, unprocessed: no batch is ever confirmed.
      faults: 'error_rate=1,only=PATCH /products/stock/bulk',
      schedules: { stock: 'off', orders: 'off' },
      config: {
        api: { retries: 0 },
        sync: { batchSize: 5, concurrency: 2 },
        queue: { attempts: 2, backoffSeconds: 0.1 },
      },
    });
    const runs = worlds.queue(world, 'runs');
    world.writeStock(rows);
    const daemon = await world.start();

    const first = await runCli(['sync', 'stock', '--wait', '--config', world.configFile], world.env, {
      timeoutMs: 60_000,
    });
    expect(first.code, first.stderr).toBe(1);
    // The summary is still printed, then the job's failure with the pipeline, the items and the cause.
    expect(first.stdout).toMatch(/stock/);
    expect(first.stdout).toMatch(
      /^job \S+ failed: api_server: stock: 12 item\(s\) not confirmed \(3 batch\(es\) failed\), sent again next run: /m,
    );
    const [failed] = (await runs.getFailed()).filter((job) => job.name === 'stock-scan');
    expect(failed).toBeDefined();
    expect(failed!.failedReason).toMatch(
      /^api_server: stock: 12 item\(s\) not confirmed \(3 batch\(es\) failed\), sent again next run: api_server: /,
    );
    // Failed for good, not retried: its batches ran, the next scan resends.
    expect(failed!.attemptsMade).toBe(1);
    const metrics = await opsGet(daemon.url, '/metrics');
    expect(metrics.text).toMatch(/^erp_sync_job_failures_total\{queue="runs",code="api_server"\} 1$/m);
    expect(metrics.text).toMatch(/^erp_sync_runs_total\{pipeline="stock",status="failed"\} 1$/m);

    const listed = await runCli(['jobs', 'failed', '--config', world.configFile], world.env);
    expect(listed.stdout).toContain(`runs/${failed!.id}`);
    expect(listed.stdout).toContain('stock: 12 item(s) not confirmed');

    world.sandbox.setFaults(null);
    const next = await runCli(
      ['sync', 'stock', '--wait', '--json', '--config', world.configFile],
      world.env,
      {
        timeoutMs: 60_000,
      },
    );
    expect(next.code, next.stdout).toBe(0);
    const platform = await platformStock(world.api);
    expect(rows.filter((row) => platform.get(row.sku) !== row.quantity)).toEqual([]);
    // The next scan resent every item the failed one left unconfirmed.
    const { summaries } = JSON.parse(next.stdout) as { summaries: RunSummary[] };
    expect(summaries.map((s) => [s.pipeline, s.applied, s.error])).toEqual([['stock', SKUS, undefined]]);
  }, 120_000);
});
