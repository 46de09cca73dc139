import { afterEach, describe, expect, it } from 'vitest';
import { createPlatformOrder, outboxIds, platformOrderIds, sellableSku } from '../support/orderChecks.js';
import { eventually } from '../../dev/daemonProcess.js';
import {
  importedCount,
  opsGet,
  platformEquals,
  platformStock,
  startDaemonWorld,
  type DaemonWorld,
} from '../support/daemonWorld.js';

let world: DaemonWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const bulk = (n: number): string => `BULK-${String(n).padStart(6, '0')}`;

function stockRows(count: number, quantity: (n: number) => number) {
  return Array.from({ length: count }, (_, i) => ({ sku: bulk(i + 1), quantity: quantity(i + 1) }));
}

describe('the daemon after a crash or a Redis loss', () => {
  it('killed (SIGKILL) in the middle of a push, then restarted: platform equals the files, every order once', async () => {
    world = await startDaemonWorld({
      extraProducts: 2000,
      faults: 'latency=20-40',
      config: { sync: { batchSize: 50, concurrency: 2 } },
    });
    const rows = stockRows(2000, (n) => (n * 7) % 500);
    world.writeStock(rows);
    const first = await world.start();
    await eventually(
      'the first stock batches',
      () => world!.sandbox.requestLog.entries().filter((e) => e.path.endsWith('/stock/bulk')).length >= 3,
    );
    first.kill('SIGKILL');
    await first.exited;
    expect(await platformEquals(world, rows)).toBe(false);

    // The dead process's jobs are recovered (lock and stalled-check timing): pushes resume within 15 s.
    const pushedBefore = world.sandbox.requestLog.entries().length;
    const second = await world.start();
    await eventually(
      'pushes resumed',
      () =>
        world!.sandbox.requestLog
          .entries()
          .slice(pushedBefore)
          .some((e) => e.path.endsWith('/stock/bulk')),
      15_000,
    );
    await eventually('the platform equal to the files', () => platformEquals(world!, rows), 60_000, 1_000);
    const expected = await platformOrderIds(world.api, ['new', 'confirmed']);
    await eventually(
      'every order in the outbox',
      async () => (await outboxIds(world!.erpDir)).ids.length === expected.length,
    );
    expect((await outboxIds(world.erpDir)).ids).toEqual(expected);
    second.kill('SIGTERM');
    expect((await second.exited).code).toBe(0);
  }, 120_000);

  it('loses nothing when Redis restarts empty, and is unready and warns while Redis is away', async () => {
    const password = 'e2e-redis-pass-5c1d';
    world = await startDaemonWorld({ redisPassword: password });
    const sku = await sellableSku(world.api);
    world.writeStock([{ sku, quantity: 31 }]);
    const daemon = await world.start();
    await eventually('the first change', async () => (await platformStock(world!.api)).get(sku) === 31);

    await world.redis.stop();
    await eventually(
      'readiness red without Redis',
      async () => (await opsGet(daemon.url, '/readyz')).status === 503,
    );
    expect((await opsGet(daemon.url, '/readyz')).text).toContain('Redis is unreachable');
    expect((await opsGet(daemon.url, '/healthz')).status).toBe(200);
    // Said at the default level (info): a warning per connection and worker, the address masked.
    const logged = (level: number, msg: string) =>
      daemon
        .stderr()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { level: number; msg: string })
        .some((line) => line.level === level && line.msg === msg);
    await eventually('warnings for the lost connections', () =>
      [
        'Redis unreachable (worker connection); reconnecting',
        'Redis unreachable (producer connection); reconnecting',
      ].every((msg) => logged(40, msg)),
    );
    // Changes made while Redis is away (the daemon cannot even enqueue) are found afterwards.
    world.writeStock([{ sku, quantity: 32 }]);
    const order = await createPlatformOrder(world.api, sku);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    await world.redis.start(); // empty: no persistence
    await eventually('ready again', async () => (await opsGet(daemon.url, '/readyz')).status === 200, 20_000);
    // Readiness follows the producer connection; the worker's reconnects on a timer of its own.
    await eventually(
      'the worker connection back',
      () => logged(30, 'Redis reachable again (worker connection)'),
      20_000,
    );
    await eventually(
      'the change made while Redis was away',
      async () => (await platformStock(world!.api)).get(sku) === 32,
      20_000,
    );
    await eventually(
      'the order placed while Redis was away',
      async () => (await outboxIds(world!.erpDir)).ids.includes(order.id),
      20_000,
    );

    // And a FLUSHALL while running loses nothing either.
    await world.redis.client().flushall();
    world.writeStock([{ sku, quantity: 33 }]);
    await eventually(
      'the change after FLUSHALL',
      async () => (await platformStock(world!.api)).get(sku) === 33,
      20_000,
    );
    expect(daemon.child.exitCode).toBeNull();
    expect(daemon.stderr()).not.toContain(password);
  }, 120_000);

  it('two replicas on one Redis and store import every order once', async () => {
    world = await startDaemonWorld();
    const sku = await sellableSku(world.api);
    const [a, b] = await Promise.all([world.start(), world.start()]);
    const placed = [];
    for (let i = 0; i < 6; i++) placed.push(await createPlatformOrder(world.api, sku));
    const expected = await platformOrderIds(world.api, ['new', 'confirmed']);
    await eventually(
      'every order in the outbox',
      async () => (await outboxIds(world!.erpDir)).ids.length === expected.length,
      30_000,
    );
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect((await outboxIds(world.erpDir)).ids).toEqual(expected);
    // No attempt failed either: one replica's store write never fails on the other's lock (it waits).
    for (const daemon of [a, b]) expect(daemon.stderr()).not.toContain('"msg":"job failed"');
    expect(await importedCount(world)).toBe(expected.length);
    for (const daemon of [a, b]) daemon.kill('SIGTERM');
    expect((await a.exited).code).toBe(0);
    expect((await b.exited).code).toBe(0);
    expect(placed.every((order) => expected.includes(order.id))).toBe(true);
  }, 120_000);
});
