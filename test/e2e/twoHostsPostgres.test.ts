import { afterEach, describe, expect, it } from 'vitest';
import { eventually, type DaemonProcess } from '../../dev/daemonProcess.js';
import { createPlatformOrder, outboxIds, platformOrderIds, sellableSku } from '../support/orderChecks.js';
import {
  importJobOrders,
  importOutcomes,
  opsGet,
  platformEquals,
  useDaemonWorlds,
  type DaemonWorld,
} from '../support/daemonWorld.js';
import { TestStores } from '../support/testStores.js';

const worlds = useDaemonWorlds();
let stores: TestStores | undefined;
afterEach(() => {
  stores?.cleanup();
  stores = undefined;
});

/**
 * A dead daemon's jobs are back in the queue once their locks lapse (8 s) and a live daemon's
 * stalled check (every 3 s) sees it: the survivor takes over within this (the flow's store lease is
 * renewed by any live daemon, so it does not add its TTL).
 */
const TAKEOVER_MS = 15_000;

const bulk = (n: number): string => `BULK-${String(n).padStart(6, '0')}`;

/** Requests of one route this daemon had answered (status 200), from its own /metrics. */
async function answered(daemon: DaemonProcess, method: string, route: string): Promise<number> {
  const text = (await opsGet(daemon.url, '/metrics')).text;
  const escaped = route.replace(/[/{}]/g, (c) => `\\${c}`);
  const line = new RegExp(
    `^erp_sync_api_requests_total\\{method="${method}",route="${escaped}",status="200"\\} (\\S+)$`,
    'm',
  ).exec(text);
  return line ? Number(line[1]) : 0;
}
const bulkAnswered = (daemon: DaemonProcess) => answered(daemon, 'PATCH', '/products/stock/bulk');

/** Orders this daemon's import jobs brought into the ERP, from its own /metrics. */
async function importsDone(daemon: DaemonProcess): Promise<number> {
  const text = (await opsGet(daemon.url, '/metrics')).text;
  const line = /^erp_sync_items_total\{pipeline="orders",outcome="applied"\} (\S+)$/m.exec(text);
  return line ? Number(line[1]) : 0;
}

/** Enough orders that their imports (each a file in the outbox and a few store writes) take a few seconds. */
const ORDERS = 300;

/** Two "hosts" (working folders of their own) on one PostgreSQL store, one Redis and one sandbox. */
async function twoHosts(options: { skus: number; faults: string }) {
  stores = new TestStores('postgres');
  const world = await worlds.start({
    extraProducts: options.skus,
    faults: options.faults,
    config: {
      store: stores.location(),
      sync: { batchSize: 20, concurrency: 2, lease: { ttlSeconds: 10, waitSeconds: 600 } },
      queue: { bulkConcurrency: 2 },
      orders: { concurrency: 1, oversellGuard: { enabled: false } },
    },
  });
  return { world, a: world.host('a'), b: world.host('b') };
}

/**
 * Every listed platform order in the outbox exactly once, decided by one completed import job each:
 * imported, or found already in the ERP when it is one a killed host had written but not finished
 * (`retried`: the orders of the jobs under way at the kill).
 */
async function expectEveryOrderOnce(world: DaemonWorld, retried: readonly string[] = []): Promise<void> {
  const expected = await platformOrderIds(world.api, ['new', 'confirmed']);
  await eventually(
    'every order in the outbox',
    async () => (await outboxIds(world.erpDir)).ids.length === expected.length,
    60_000,
  );
  // A late duplicate would show up after the last one arrived.
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  expect((await outboxIds(world.erpDir)).ids).toEqual(expected);
  const outcomes = await importOutcomes(world);
  expect([...outcomes.keys()].sort()).toEqual(expected.map((id) => `order-${id}`).sort());
  const notImported = [...outcomes].filter(([, outcome]) => outcome !== 'imported');
  for (const [order, outcome] of notImported) {
    expect(retried).toContain(order);
    // Found in the ERP, or (a killed host's batch written to the store before it could finish) decided.
    expect(['already_in_erp', 'decided_before']).toContain(outcome);
  }
}

describe('replicas on two hosts: one PostgreSQL store, one Redis', () => {
  it('SIGKILL of the host that is pushing: the other takes the batches over within the lock time, the platform ends equal to the ERP', async () => {
    const skus = 1200;
    const { world, a, b } = await twoHosts({
      skus,
      faults: 'latency=400-400,only=PATCH /products/stock/bulk',
    });
    const rows = Array.from({ length: skus }, (_, i) => ({ sku: bulk(i + 1), quantity: (i * 11) % 300 }));
    world.writeStock(rows);
    const sku = await sellableSku(world.api);
    for (let i = 0; i < 4; i++) await createPlatformOrder(world.api, sku);

    const first = await a.start();
    await eventually('host a pushing', async () => (await bulkAnswered(first)) >= 3, 40_000, 100);
    // Host b joins while a holds both slots of queue.bulkConcurrency: b sends only once a's slots are free.
    const second = await b.start();
    const beforeKill = await bulkAnswered(second);
    expect(await bulkAnswered(first)).toBeLessThan(skus / 20); // still mid-push
    first.kill('SIGKILL');
    const killedAt = performance.now();
    await first.exited;
    const importing = importJobOrders(await worlds.queue(world, 'imports').getActive());

    await eventually(
      'host b sending',
      async () => (await bulkAnswered(second)) > beforeKill,
      TAKEOVER_MS + 10_000,
      100,
    );
    expect(performance.now() - killedAt).toBeLessThan(TAKEOVER_MS);
    await eventually('the platform equal to the ERP', () => platformEquals(world, rows), 90_000, 1_000);
    await expectEveryOrderOnce(world, importing);
    second.kill('SIGTERM');
    expect((await second.exited).code).toBe(0);
  }, 180_000);

  it('SIGKILL of a host in the middle of order imports: the other takes its imports over within the lock time, each order imported once', async () => {
    const { world, a, b } = await twoHosts({ skus: 0, faults: 'none' });
    const sku = await sellableSku(world.api);
    world.writeStock([{ sku, quantity: 1234 }]);
    for (let i = 0; i < ORDERS; i++) await createPlatformOrder(world.api, sku);
    const total = (await platformOrderIds(world.api, ['new', 'confirmed'])).length;

    const [first, second] = await Promise.all([a.start(), b.start()]);
    // Both hosts take an import job (a batch of orders) each at once: a's is under way once files arrive.
    await eventually(
      'the imports under way',
      async () => (await outboxIds(world.erpDir)).ids.length >= 5,
      40_000,
      20,
    );
    expect((await outboxIds(world.erpDir)).ids.length).toBeLessThan(total); // still mid-import
    const importsQueue = worlds.queue(world, 'imports');
    first.kill('SIGKILL');
    const killedAt = Date.now();
    await first.exited;
    // The imports under way at the kill, a's among them (locked by a dead process).
    const activeJobs = await importsQueue.getActive();
    const active = importJobOrders(activeJobs);
    expect(active.length).toBeGreaterThan(0);
    await eventually(
      'the imports under way at the kill finished',
      async () => {
        for (const job of activeJobs)
          if ((await importsQueue.getJobState(job.id!)) !== 'completed') return false;
        return true;
      },
      TAKEOVER_MS + 30_000,
      100,
    );
    // What the lock time bounds is the takeover: b starts a's jobs again (BullMQ's processedOn, set at
    // each start; b's own jobs started before the kill) within it. When they finish also depends on
    // b's own batch before them (orders.concurrency 1): up to 100 orders.
    const restarted = (await Promise.all(activeJobs.map((job) => importsQueue.getJob(job.id!)))).filter(
      (job) => job!.processedOn! > killedAt,
    );
    for (const job of restarted) expect(job!.processedOn! - killedAt, job!.id).toBeLessThan(TAKEOVER_MS);
    expect(await importsDone(second)).toBeGreaterThan(0);
    await expectEveryOrderOnce(world, active);
    await eventually('the platform equal to the ERP', () => platformEquals(world, [{ sku, quantity: 1234 }]));
    second.kill('SIGTERM');
    expect((await second.exited).code).toBe(0);
  }, 180_000);
});
