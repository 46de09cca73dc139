import { describe, expect, it } from 'vitest';
import type { RunPayload } from '../../src/queue/jobTypes.js';
import { sellableSku } from '../support/orderChecks.js';
import { bulkSku } from '../support/syncHarness.js';
import { eventually } from '../../dev/daemonProcess.js';
import { FAST_SCHEDULES, platformStock, useDaemonWorlds } from '../support/daemonWorld.js';

const worlds = useDaemonWorlds();
// Once a year: a test that runs across the top of an hour gets no scheduled run.
const YEARLY = { ...FAST_SCHEDULES, orders: 'off', stock: '0 0 1 1 *' };

describe('erp-sync start: instant triggers', () => {
  it('moves a stock file change to the platform within 5 seconds while the next scheduled run is months away', async () => {
    const world = await worlds.start({ schedules: YEARLY });
    const sku = await sellableSku(world.api);
    world.writeStock([{ sku, quantity: 4321 }]);
    await world.start();
    // The start run (a catch-up at start) pushes the first file; the next cron tick is months away.
    await eventually(
      'the start run on the platform',
      async () => (await platformStock(world.api)).get(sku) === 4321,
    );

    const written = Date.now();
    world.writeStock([{ sku, quantity: 1234 }]);
    await eventually(
      'the watched change on the platform',
      async () => (await platformStock(world.api)).get(sku) === 1234,
    );
    expect(Date.now() - written).toBeLessThan(5_000);
  }, 120_000);

  it('runs a scan for a change written while the previous scan waits for its batches', async () => {
    const skus = 200;
    const world = await worlds.start({
      schedules: YEARLY,
      extraProducts: skus,
      // 20 batches of 10, two at a time, each answered in 300-400 ms: the start run's flow lasts seconds.
      faults: 'latency=300-400,only=PATCH /products/stock/bulk',
      config: { sync: { batchSize: 10, concurrency: 2 } },
    });
    const rows = (quantity: number) =>
      Array.from({ length: skus }, (_, i) => ({ sku: bulkSku(i + 1), quantity }));
    const runs = worlds.queue(world, 'runs');
    world.writeStock(rows(11));
    await world.start();
    await eventually(
      "the start run's scan waiting for its batches",
      async () => (await runs.getJobs(['waiting-children'])).some((job) => job.name === 'stock-scan'),
      30_000,
      20,
    );
    world.writeStock(rows(22));
    await eventually(
      'the change on the platform',
      async () => {
        const platform = await platformStock(world.api);
        return rows(22).every((row) => platform.get(row.sku) === 22);
      },
      60_000,
    );

    // The change's run was enqueued by the watch while the start run was still unfinished (BullMQ
    // drops a de-duplicated trigger while the job it matches waits for children).
    const scans = (await runs.getJobs(['completed'])).filter((job) => job.name === 'stock-scan');
    const start = scans.find((job) => (job.data as RunPayload).trigger === 'start');
    // The first of them: the file's write may be seen twice, and one follow-up run kept.
    const watched = scans
      .filter((job) => (job.data as RunPayload).trigger === 'watch')
      .map((job) => job.timestamp);
    expect(start?.finishedOn).toBeGreaterThan(0);
    expect(Math.min(...watched)).toBeLessThan(start!.finishedOn!);
  }, 120_000);
});
