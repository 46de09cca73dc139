import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { eventually } from '../../dev/daemonProcess.js';
import {
  bulkStockRequests,
  olderAfterNewer,
  olderFromFirstNewer,
  platformStock,
  useDaemonWorlds,
  type DaemonWorld,
} from '../support/daemonWorld.js';

let world: DaemonWorld | undefined;
const worlds = useDaemonWorlds();

const SKUS = 40;
const TTL_SECONDS = 2;
/** One bulk answer of the flow takes this long: several lease TTLs. */
const SLOW_MS = 9_000;
const sku = (n: number): string => `BULK-${String(n).padStart(6, '0')}`;
const rows = (quantity: (n: number) => number) =>
  Array.from({ length: SKUS }, (_, i) => ({ sku: sku(i + 1), quantity: quantity(i + 1) }));
// Disjoint ranges: any quantity below 1000 is a value of the first file.
const older = rows((n) => n);
const newer = rows((n) => 1000 + n);
const isOlder = (quantity: number): boolean => quantity < 1000;

describe('a flow whose batches outlast the lease TTL, and a competing run-once with newer values', () => {
  it('the competing run waits for the flow: no older value goes out after a newer one', async () => {
    world = await worlds.start({
      extraProducts: SKUS,
      recordBodies: true,
      faults: `latency=${SLOW_MS},only=PATCH /products/stock/bulk`,
      // The start run is the only scheduled one (the file watch may add a scan of the newer file).
      schedules: { orders: 'off', stock: '0 0 1 1 *' },
      config: { sync: { batchSize: 5, concurrency: 1, lease: { ttlSeconds: TTL_SECONDS } } },
    });
    const pushes = worlds.queue(world, 'pushes');
    const runs = worlds.queue(world, 'runs');
    world.writeStock(older);
    const daemon = await world.start();
    await eventually('the first batch sending', async () => (await pushes.getActiveCount()) >= 1, 30_000, 20);
    const flows = (await runs.getJobs(['waiting-children', 'active'])).filter(
      (job) => job.name === 'stock-scan',
    );
    expect(flows).toHaveLength(1);
    // Well past the TTL, well before the slow answer: without renewal the flow's hold has lapsed.
    await new Promise((resolve) => setTimeout(resolve, 2 * TTL_SECONDS * 1000));
    world.sandbox.setFaults(null);
    world.writeStock(newer);

    const competing = await runCli(['run-once', '--only', 'stock', '-c', world.configFile], world.env, {
      timeoutMs: 60_000,
    });
    expect(competing.code, competing.stderr).toBe(0);
    // Judged once the flow has ended, whichever way it went: every batch of it answered.
    await eventually(
      'the flow ended',
      async () => (await (await runs.getJob(flows[0]!.id!))?.getState()) === 'completed',
      30_000,
      100,
    );

    const requests = bulkStockRequests(world.sandbox);
    // Per SKU, once a newer value went out no older one followed (the platform's answer order).
    expect(olderAfterNewer(requests, isOlder)).toEqual([]);
    // Stronger: the competing run sent nothing until the flow had sent its last batch.
    const { firstNewer, olderLater } = olderFromFirstNewer(requests, isOlder);
    expect(firstNewer).toBeGreaterThan(0);
    expect(olderLater).toEqual([]);
    expect(requests.slice(0, firstNewer).flat()).toHaveLength(SKUS);
    expect(competing.stderr).toContain('another run of this pipeline is in progress; waiting for it');
    await eventually(
      'the platform equal to the newer file',
      async () => {
        const platform = await platformStock(world!.api);
        return newer.every((row) => platform.get(row.sku) === row.quantity);
      },
      30_000,
      500,
    );
    daemon.kill('SIGTERM');
    expect((await daemon.exited).code).toBe(0);
  }, 120_000);
});
