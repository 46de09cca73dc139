import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { eventually } from '../../dev/daemonProcess.js';
import {
  bulkStockRequests,
  opsGet,
  platformStock,
  useDaemonWorlds,
  type DaemonWorld,
} from '../support/daemonWorld.js';

let world: DaemonWorld | undefined;
const worlds = useDaemonWorlds();

const SKUS = 40;
const FLOW_LIMIT_SECONDS = 4;
const sku = (n: number): string => `BULK-${String(n).padStart(6, '0')}`;
const rows = Array.from({ length: SKUS }, (_, i) => ({ sku: sku(i + 1), quantity: 100 + i }));

describe('a flow whose child never finishes', () => {
  it('is failed past its limit, its lease released, and the next scan sends every item of it', async () => {
    world = await worlds.start({
      extraProducts: SKUS,
      recordBodies: true,
      // The platform applies the first bulk request and never answers it: that push job never ends.
      faults: 'stall_rate=1,only=PATCH /products/stock/bulk',
      schedules: { orders: 'off', stock: '0 0 1 1 *' },
      config: {
        api: { timeoutMs: 3_600_000, deadlineMs: 3_600_000 },
        sync: { batchSize: 5, concurrency: 1, lease: { ttlSeconds: 1 } },
        queue: { flowLimitSeconds: FLOW_LIMIT_SECONDS },
      },
    });
    const pushes = worlds.queue(world, 'pushes');
    const runs = worlds.queue(world, 'runs');
    world.writeStock(rows);
    const daemon = await world.start();
    await eventually(
      'the first batch sending',
      async () => (await pushes.getActiveCount()) === 1,
      30_000,
      20,
    );
    const [flow] = (await runs.getJobs(['waiting-children', 'active'])).filter(
      (job) => job.name === 'stock-scan',
    );
    expect(flow).toBeDefined();
    const sentAt = Date.now();

    await eventually(
      'the flow failed',
      async () => (await (await runs.getJob(flow!.id!))?.getState()) === 'failed',
      30_000,
      100,
    );
    const failedAfterMs = Date.now() - sentAt;
    const failed = await runs.getJob(flow!.id!);
    expect(failed!.failedReason).toMatch(
      /^flow_stuck: the stock flow waited \d+ s for its batches, past its limit of 4 s/,
    );
    // Not before its limit; within a few renewals (a third of the 1 s TTL) after it.
    expect(failedAfterMs).toBeGreaterThan(FLOW_LIMIT_SECONDS * 1000 - 1500);
    // Its waiting batches are gone (never sent); the one that never answers still runs, detached.
    expect(await pushes.getWaitingCount()).toBe(0);
    expect(await pushes.getDelayedCount()).toBe(0);
    expect(await pushes.getActiveCount()).toBe(1);
    const metrics = await opsGet(daemon.url, '/metrics');
    expect(metrics.text).toMatch(/^erp_sync_flows_stuck_total\{pipeline="stock"\} 1$/m);
    expect(metrics.text).toMatch(/^erp_sync_job_failures_total\{queue="runs",code="flow_stuck"\} 1$/m);
    expect(daemon.stdout() + daemon.stderr()).toContain('failed a flow that held its pipeline too long');

    // The lease is free: a run-once of the same pipeline goes at once, and sends every item of the
    // failed flow again (the unanswered batch's items were left in flight, the others never sent).
    world.sandbox.setFaults(null);
    const from = world.sandbox.requestLog.entries().length;
    const next = await runCli(['run-once', '--only', 'stock', '-c', world.configFile], world.env, {
      timeoutMs: 60_000,
    });
    expect(next.code, next.stderr).toBe(0);
    expect(next.stderr).not.toContain('another run of this pipeline is in progress');
    const resent = bulkStockRequests(world.sandbox, from).flat();
    expect(new Set(resent.map((item) => item.sku))).toEqual(new Set(rows.map((row) => row.sku)));
    const platform = await platformStock(world.api);
    expect(rows.filter((row) => platform.get(row.sku) !== row.quantity)).toEqual([]);
  }, 120_000);
});
