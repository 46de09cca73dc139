import { Queue } from 'bullmq';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../../dev/daemonProcess.js';
import { platformStock, startDaemonWorld, type DaemonWorld } from '../support/daemonWorld.js';

let world: DaemonWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe('a 429 storm', () => {
  it('slows the queue down, and no job ends failed', async () => {
    world = await startDaemonWorld({
      extraProducts: 300,
      faults: 'rate_limit=4/s,only=PATCH /products/stock/bulk',
      // One client retry only: most 429s reach the queue, which then waits as a whole.
      config: { sync: { batchSize: 10, concurrency: 4 }, api: { retries: 1 } },
    });
    const rows = Array.from({ length: 300 }, (_, i) => ({
      sku: `BULK-${String(i + 1).padStart(6, '0')}`,
      quantity: i + 5,
    }));
    world.writeStock(rows);
    const daemon = await world.start();
    await eventually(
      'the platform equal to the files',
      async () => {
        const platform = await platformStock(world!.api);
        return rows.every((row) => platform.get(row.sku) === row.quantity);
      },
      60_000,
      1_000,
    );
    const limited = world.sandbox.requestLog.entries().filter((entry) => entry.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    // The sandbox answers a 429 with "Retry-After: 1" (whole seconds, at least one: a token comes
    // back within a second at 4/s): the queue waits exactly that, not a fixed default.
    const waits = daemon
      .stderr()
      .split('\n')
      .filter((line) => line.includes('the queue waits'))
      .map((line) => JSON.parse(line) as { queue: string; waitMs: number });
    expect(waits.length).toBeGreaterThan(0);
    expect(waits.every((wait) => wait.queue === 'pushes' && wait.waitMs === 1_000)).toBe(true);
    const queue = new Queue('runs', {
      connection: { host: '127.0.0.1', port: world.redis.port },
      prefix: 'e2e',
    });
    try {
      expect(await queue.getFailedCount()).toBe(0);
      const pushes = new Queue('pushes', {
        connection: { host: '127.0.0.1', port: world.redis.port },
        prefix: 'e2e',
      });
      expect(await pushes.getFailedCount()).toBe(0);
      expect(await pushes.getCompletedCount()).toBeGreaterThan(0);
      await pushes.close();
    } finally {
      await queue.close();
    }
  }, 120_000);
});
