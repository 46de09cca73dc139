import { describe, expect, it } from 'vitest';
import { eventually } from '../../dev/daemonProcess.js';
import type { DaemonProcess } from '../../dev/daemonProcess.js';
import { opsGet, platformStock, useDaemonWorlds } from '../support/daemonWorld.js';

const worlds = useDaemonWorlds();

const BULK_ROUTE = 'PATCH /api/v2/products/stock/bulk';
const SKUS = 1500;
/** Each daemon's own worker takes 3 at once; together they would send 6. */
const LOCAL = 3;
const BOUND = 4;
/** A dead daemon's push jobs keep their slots until their locks lapse (8 s) and a stalled check (every 3 s) frees them. */
const SLOT_LEASE_MS = 15_000;

const sku = (n: number): string => `BULK-${String(n).padStart(6, '0')}`;

/** Bulk stock requests this daemon had answered, from its own /metrics. */
async function bulkRequests(daemon: DaemonProcess): Promise<number> {
  const text = (await opsGet(daemon.url, '/metrics')).text;
  const line =
    /^erp_sync_api_requests_total\{method="PATCH",route="\/products\/stock\/bulk",status="200"\} (\S+)$/m.exec(
      text,
    );
  return line ? Number(line[1]) : 0;
}

describe('bulk requests in flight across replicas (queue.bulkConcurrency)', () => {
  it('two daemons on one Redis never send more than the bound at once, and a SIGKILLed holder frees its slots within the lease', async () => {
    const world = await worlds.start({
      extraProducts: SKUS,
      // Every bulk request takes 300 ms, so requests of both daemons overlap.
      faults: 'latency=300-300,only=PATCH /products/stock/bulk',
      schedules: { orders: 'off' },
      config: { sync: { batchSize: 10, concurrency: LOCAL }, queue: { bulkConcurrency: BOUND } },
    });
    const [a, b] = await Promise.all([world.start(), world.start()]);
    const rows = Array.from({ length: SKUS }, (_, i) => ({ sku: sku(i + 1), quantity: (i * 13) % 400 }));
    world.writeStock(rows);

    // Both send (150 batches of one scan, shared through Redis), together up to the bound and not past it.
    await eventually(
      'both daemons sending',
      async () => (await bulkRequests(a)) > 0 && (await bulkRequests(b)) > 0,
      30_000,
      100,
    );
    await eventually('the bound reached', () => world.sandbox.inFlight.peak(BULK_ROUTE) >= BOUND, 10_000, 50);
    expect(world.sandbox.inFlight.peak(BULK_ROUTE)).toBe(BOUND);
    const gauge = (await opsGet(b.url, '/metrics')).text;
    expect(gauge).toContain(`erp_sync_queue_global_concurrency{queue="pushes"} ${BOUND}`);

    // Kill the daemon that sent more (it holds most slots); its requests in flight end with its sockets.
    const [victim, survivor] = (await bulkRequests(a)) >= (await bulkRequests(b)) ? [a, b] : [b, a];
    victim.kill('SIGKILL');
    const killedAt = performance.now();
    await victim.exited;
    await eventually(
      'the victim’s requests ended',
      () => world.sandbox.inFlight.now(BULK_ROUTE) <= LOCAL,
      5_000,
      20,
    );
    world.sandbox.inFlight.resetPeak(BULK_ROUTE);

    // The survivor gets every slot it can use (its own 3) once the dead daemon's slots lapse.
    await eventually(
      'the survivor sending 3 at once',
      () => world.sandbox.inFlight.peak(BULK_ROUTE) >= LOCAL,
      SLOT_LEASE_MS + 5_000,
      50,
    );
    expect(performance.now() - killedAt).toBeLessThan(SLOT_LEASE_MS);

    const equal = async () => {
      const platform = await platformStock(world.api);
      return rows.every((row) => platform.get(row.sku) === row.quantity);
    };
    await eventually('the platform equal to the file', equal, 60_000, 1_000);
    expect(world.sandbox.inFlight.peak(BULK_ROUTE)).toBeLessThanOrEqual(BOUND);
    expect(await bulkRequests(survivor)).toBeGreaterThan(0);
    survivor.kill('SIGTERM');
    expect((await survivor.exited).code).toBe(0);
  }, 120_000);
});
