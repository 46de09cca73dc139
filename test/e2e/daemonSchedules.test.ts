import { afterEach, describe, expect, it } from 'vitest';
import { createPlatformOrder, outboxIds, platformOrderIds, sellableSku } from '../support/orderChecks.js';
import { eventually } from '../../dev/daemonProcess.js';
import { platformStock, startDaemonWorld, type DaemonWorld } from '../support/daemonWorld.js';

let world: DaemonWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe('erp-sync start', () => {
  it('moves a stock file change to the platform and a new platform order to the outbox once, then stops on SIGTERM', async () => {
    world = await startDaemonWorld();
    const sku = await sellableSku(world.api);
    world.writeStock([{ sku, quantity: 4321 }]);
    const daemon = await world.start();
    expect(daemon.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    await eventually(
      'the stock change on the platform',
      async () => (await platformStock(world!.api)).get(sku) === 4321,
    );
    world.writeStock([{ sku, quantity: 1234 }]);
    await eventually(
      'the second change on the platform',
      async () => (await platformStock(world!.api)).get(sku) === 1234,
    );

    const order = await createPlatformOrder(world.api, sku);
    await eventually('the new order in the outbox', async () =>
      (await outboxIds(world!.erpDir)).ids.includes(order.id),
    );
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    // Every order of the imported statuses is in the outbox once, the new one included.
    const expected = await platformOrderIds(world.api, ['new', 'confirmed']);
    expect(expected).toContain(order.id);
    expect((await outboxIds(world.erpDir)).ids).toEqual(expected);

    const stoppedAt = Date.now();
    daemon.kill('SIGTERM');
    const exit = await daemon.exited;
    expect(exit.code).toBe(0);
    expect(Date.now() - stoppedAt).toBeLessThan(10_000 + 3_000);
    expect(daemon.stderr()).not.toContain(world.env.CMS_API_KEY);
  }, 120_000);

  it('exits 0 on SIGTERM within shutdownGraceSeconds while a push is running, and a restart finishes the work', async () => {
    world = await startDaemonWorld({
      extraProducts: 1000,
      faults: 'latency=150-250',
      config: { sync: { batchSize: 20, concurrency: 1 }, shutdownGraceSeconds: 3 },
    });
    const rows = Array.from({ length: 1000 }, (_, i) => ({
      sku: `BULK-${String(i + 1).padStart(6, '0')}`,
      quantity: i + 1,
    }));
    world.writeStock(rows);
    const daemon = await world.start();
    await eventually('pushes under way', () =>
      world!.sandbox.requestLog.entries().some((entry) => entry.path.endsWith('/stock/bulk')),
    );
    const stoppedAt = Date.now();
    daemon.kill('SIGTERM');
    const exit = await daemon.exited;
    expect(exit).toEqual({ code: 0, signal: null });
    expect(Date.now() - stoppedAt).toBeLessThan(3_000 + 2_000);
    expect(daemon.stderr()).toContain('shutting down');

    world.sandbox.setFaults(null);
    const again = await world.start();
    await eventually(
      'the platform equal to the files after the restart',
      async () => {
        const platform = await platformStock(world!.api);
        return rows.every((row) => platform.get(row.sku) === row.quantity);
      },
      30_000,
      1_000,
    );
    again.kill('SIGTERM');
    expect((await again.exited).code).toBe(0);
  }, 120_000);
});
