import { afterEach, describe, expect, it } from 'vitest';
import {
  createPlatformOrder,
  outboxIds,
  platformOrderIds,
  sellableSku,
} from '../integration/orders/orderChecks.js';
import { eventually } from '../support/daemonProcess.js';
import { platformStock, startDaemonWorld, type DaemonWorld } from './daemonWorld.js';

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
  });
});
