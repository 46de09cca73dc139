import { afterEach, describe, expect, it } from 'vitest';
import { sellableSku } from '../support/orderChecks.js';
import { eventually } from '../../dev/daemonProcess.js';
import {
  metricValue,
  opsGet,
  platformStock,
  startDaemonWorld,
  type DaemonWorld,
} from '../support/daemonWorld.js';

let world: DaemonWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe('a refused API key', () => {
  it('pauses every queue with readiness red and a few probe requests, and resumes by itself when the key works again', async () => {
    world = await startDaemonWorld({ config: { queue: { probeSeconds: 4 } } });
    const sku = await sellableSku(world.api);
    world.writeStock([{ sku, quantity: 11 }]);
    const daemon = await world.start();
    await eventually(
      'the first change on the platform',
      async () => (await platformStock(world!.api)).get(sku) === 11,
    );
    expect((await opsGet(daemon.url, '/readyz')).status).toBe(200);

    world.sandbox.setKeyRevoked(world.env.CMS_API_KEY!, true);
    await eventually('readiness red', async () => (await opsGet(daemon.url, '/readyz')).status === 503);
    const ready = JSON.parse((await opsGet(daemon.url, '/readyz')).text) as { reasons: string[] };
    expect(ready.reasons.join(' ')).toMatch(/paused: .*api_auth/);
    const scraped = (await opsGet(daemon.url, '/metrics')).text;
    expect(metricValue(scraped, 'erp_sync_paused')).toBe(1);
    // the store-fed gauges of the dashboards and alerts are live in the running daemon
    expect(metricValue(scraped, 'erp_sync_orders_parked')).toBe(0);
    expect(daemon.stderr()).toMatch(/every queue is paused; fix api\.apiKey/);

    // While paused, schedules keep firing every second, yet only the probe reaches the platform.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    world.sandbox.requestLog.clear();
    world.writeStock([{ sku, quantity: 22 }]);
    await new Promise((resolve) => setTimeout(resolve, 10_000));
    const during = world.sandbox.requestLog.entries();
    expect(during.length).toBeLessThanOrEqual(4);
    expect(during.every((entry) => entry.method === 'GET' && entry.path.endsWith('/account'))).toBe(true);
    expect((await opsGet(daemon.url, '/readyz')).status).toBe(503);

    world.sandbox.setKeyRevoked(world.env.CMS_API_KEY!, false);
    await eventually(
      'readiness green again',
      async () => (await opsGet(daemon.url, '/readyz')).status === 200,
      15_000,
    );
    expect(metricValue((await opsGet(daemon.url, '/metrics')).text, 'erp_sync_paused')).toBe(0);
    await eventually(
      'the change made while paused on the platform',
      async () => (await platformStock(world!.api)).get(sku) === 22,
    );
    expect(daemon.stderr()).toContain('queues resumed');
    expect(daemon.stderr()).not.toContain(world.env.CMS_API_KEY);
  }, 120_000);
});
