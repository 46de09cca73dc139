import { afterEach, describe, expect, it } from 'vitest';
import { sellableSku } from '../support/orderChecks.js';
import { eventually } from '../../dev/daemonProcess.js';
import { FAST_SCHEDULES, platformStock, startDaemonWorld, type DaemonWorld } from '../support/daemonWorld.js';

let world: DaemonWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe('erp-sync start: instant triggers', () => {
  it('moves a stock file change to the platform within 5 seconds while the schedule is an hour', async () => {
    world = await startDaemonWorld({ schedules: { ...FAST_SCHEDULES, orders: 'off', stock: '0 0 * * * *' } });
    const sku = await sellableSku(world.api);
    world.writeStock([{ sku, quantity: 4321 }]);
    await world.start();
    // The start run (a catch-up at start) pushes the first file; the next cron tick is an hour away.
    await eventually(
      'the start run on the platform',
      async () => (await platformStock(world!.api)).get(sku) === 4321,
    );

    const written = Date.now();
    world.writeStock([{ sku, quantity: 1234 }]);
    await eventually(
      'the watched change on the platform',
      async () => (await platformStock(world!.api)).get(sku) === 1234,
    );
    expect(Date.now() - written).toBeLessThan(5_000);
  }, 120_000);
});
