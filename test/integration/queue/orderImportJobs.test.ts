import { Queue, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ApiOrder } from '../../../src/api/schemas.js';
import { silentLogger } from '../../../src/logger.js';
import { ImportClaims } from '../../../src/queue/importClaims.js';
import {
  createImportEnqueuer,
  cutBatches,
  pageJobs,
  type ImportEnqueuer,
} from '../../../src/queue/importEnqueuer.js';
import { ImportHold } from '../../../src/queue/importHold.js';
import type { JobRuntime } from '../../../src/queue/jobRuntime.js';
import type { ImportBatchPayload, ImportPayload } from '../../../src/queue/jobTypes.js';
import { orderBatchImportJob, type ImportBatchResult } from '../../../src/queue/orderBatchImportJob.js';
import { orderRepositoriesOf } from '../../../src/store/createOrderRepositories.js';
import type { SyncContext } from '../../../src/sync/frame/types.js';
import { runOrders } from '../../../src/sync/orders/orders.js';
import { unitsOf } from '../../../src/sync/orders/unitsOf.js';
import { startPrivateRedis, type PrivateRedis } from '../../../dev/redisServer.js';
import { MemoryErp, MemoryErpAdapter } from '../../support/MemoryErpAdapter.js';
import { startOrderWorld, type OrderWorld } from '../../support/orderWorld.js';

let redis: PrivateRedis;
beforeAll(async () => {
  redis = await startPrivateRedis();
});
afterAll(async () => {
  await redis.close();
});

let world: OrderWorld | undefined;
const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  await world?.close();
  world = undefined;
});

let prefixes = 0;

/** A replica's view of one imports queue: its own Redis connections, the shared store. */
function replica(
  ctx: SyncContext,
  prefix: string,
  concurrency = 4,
): { queue: Queue; enqueuer: ImportEnqueuer; redis: Redis } {
  const connection = new Redis(redis.url);
  const queue = new Queue('imports', { connection: { host: '127.0.0.1', port: redis.port }, prefix });
  closers.push(
    () => connection.quit(),
    () => queue.close(),
  );
  const enqueuer = createImportEnqueuer({
    queue,
    redis: connection,
    store: ctx.store,
    concurrency,
    retryDelayMs: 60_000,
  });
  return { queue, enqueuer, redis: connection };
}

/** One orders poll of the sandbox's orders: recorded as queued in the store, handed to `enqueue`. */
async function poll(
  ctx: SyncContext,
  enqueue: (ids: number[], listed: Map<number, ApiOrder>) => Promise<void>,
): Promise<{ ids: number[]; listed: Map<number, ApiOrder> }> {
  let found: { ids: number[]; listed: Map<number, ApiOrder> } = { ids: [], listed: new Map() };
  await runOrders(
    ctx,
    { full: false, dryRun: false },
    {
      async all(_run, ids, listed) {
        found = { ids, listed };
        await enqueue(ids, listed);
      },
    },
  );
  return found;
}

/** Every order id the queue's jobs carry, with how many jobs carry it. */
async function ordersInJobs(queue: Queue): Promise<Map<number, number>> {
  const jobs = await queue.getJobs(['waiting', 'delayed', 'active', 'prioritized']);
  const out = new Map<number, number>();
  for (const job of jobs) {
    const ids =
      job.name === 'order-imports'
        ? (job.data as ImportBatchPayload).orders.map((order) => order.id)
        : [(job.data as ImportPayload).orderId];
    for (const id of ids) out.set(id, (out.get(id) ?? 0) + 1);
  }
  return out;
}

async function openMemoryErp(memory: MemoryErp): Promise<MemoryErpAdapter> {
  const adapter = new MemoryErpAdapter(memory);
  await adapter.open();
  return adapter;
}

function runtimeOf(
  ctx: SyncContext,
  enqueuer: ImportEnqueuer,
  hold: ImportHold,
): JobRuntime & { limited: number[] } {
  const limited: number[] = [];
  return {
    ctx,
    logger: silentLogger(),
    shutdown: new AbortController().signal,
    imports: hold,
    limited,
    rateLimit: async (_queue, ms) => {
      limited.push(ms);
    },
    recordItems: () => undefined,
    recordJobFailure: () => undefined,
    enqueueImports: (ids, listed) => enqueuer.enqueue(ids, listed),
    handOverImports: (orders) => enqueuer.handOver(orders),
    releaseImports: (ids) => enqueuer.release(ids),
  } as Partial<JobRuntime> as JobRuntime & { limited: number[] };
}

describe('order import jobs of many orders', () => {
  it('cuts the orders into batches of at most a list page, a multiple of the runners, evenly', () => {
    const ids = Array.from({ length: 1000 }, (_, k) => k + 1);
    const batches = cutBatches(ids, 4);
    expect(batches).toHaveLength(12);
    expect(batches.flat()).toEqual(ids);
    expect(Math.max(...batches.map((b) => b.length))).toBeLessThanOrEqual(100);
    expect(
      Math.max(...batches.map((b) => b.length)) - Math.min(...batches.map((b) => b.length)),
    ).toBeLessThanOrEqual(1);
    expect(cutBatches([7, 8], 4)).toEqual([[7], [8]]);
  });

  it('cuts a list page read mid-scan into one job while many orders follow, into small ones near the end', () => {
    expect(pageJobs(100, 9_900, 16)).toBe(1);
    expect(pageJobs(100, 1_500, 16)).toBe(1);
    expect(pageJobs(100, 700, 16)).toBe(2);
    expect(pageJobs(100, 0, 16)).toBe(4);
    expect(pageJobs(3, 0, 16)).toBe(1);
    expect(pageJobs(0, 0, 16)).toBe(0);
  });

  it("a poll hands each list page's new orders to jobs as it reads the page; its last hand-over finds them all taken", async () => {
    world = await startOrderWorld({ config: { orders: { perPage: 10 } } });
    const ctx = await world.context();
    const { enqueuer, queue } = replica(ctx, `pages${prefixes++}`);
    const pages: { ids: number[]; after: number }[] = [];
    let last = -1;
    await runOrders(
      ctx,
      { full: false, dryRun: false },
      {
        async found(_run, ids, listed, ordersAfter) {
          pages.push({ ids, after: ordersAfter });
          // Each page's jobs are there before the scan reads the next page.
          const before = (await ordersInJobs(queue)).size;
          await enqueuer.enqueue(ids, listed, ordersAfter);
          expect((await ordersInJobs(queue)).size).toBe(before + ids.length);
        },
        async all(_run, ids, listed) {
          expect(ids.length).toBe(pages.flatMap((p) => p.ids).length);
          last = await enqueuer.enqueue(ids, listed);
        },
      },
    );
    expect(pages.length).toBeGreaterThan(1);
    expect(pages.at(-1)!.after).toBe(0);
    expect(last).toBe(0);
    const queued = orderRepositoriesOf(ctx.store).seen.queued();
    const carried = await ordersInJobs(queue);
    expect([...carried.keys()].sort((x, y) => x - y)).toEqual(queued);
    expect([...carried.values()].every((n) => n === 1)).toBe(true);
  }, 60_000);

  it('two replicas polling at once hand each order to one job; a poll while they wait hands over none; once the jobs are done, the orders still queued are claimed again', async () => {
    world = await startOrderWorld();
    const ctx = await world.context();
    const prefix = `claims${prefixes++}`;
    const a = replica(ctx, prefix);
    const b = replica(ctx, prefix);
    const { ids, listed: inFull } = await poll(ctx, async () => undefined);
    expect(ids.length).toBeGreaterThan(10);
    // Every third as if the list had not carried it in full: a job of its own (with a GET).
    const listed = new Map([...inFull].filter(([id]) => ids.includes(id) && id % 3 !== 0));
    expect(listed.size).toBeLessThan(ids.length);

    const [byA, byB] = await Promise.all([a.enqueuer.enqueue(ids, listed), b.enqueuer.enqueue(ids, listed)]);
    expect(byA + byB).toBe(ids.length);
    const carried = await ordersInJobs(a.queue);
    expect([...carried.keys()].sort((x, y) => x - y)).toEqual([...ids].sort((x, y) => x - y));
    expect([...carried.values()].every((n) => n === 1)).toBe(true);
    const jobs = await a.queue.getJobs(['waiting']);
    const batched = jobs.filter((job) => job.name === 'order-imports');
    expect(batched.flatMap((job) => (job.data as ImportBatchPayload).orders.map((o) => o.id)).sort()).toEqual(
      [...listed.keys()].sort(),
    );
    expect(jobs.length - batched.length).toBe(ids.length - listed.size);

    // A later poll (the orders still queued in the store) while the jobs wait.
    expect(await b.enqueuer.enqueue(ids, listed)).toBe(0);
    expect((await a.queue.getJobs(['waiting'])).length).toBe(jobs.length);

    // The jobs end without deciding the orders (as a job removed by hand would): free to claim again.
    const worker = new Worker('imports', async () => ({}), {
      connection: { host: '127.0.0.1', port: redis.port, maxRetriesPerRequest: null },
      prefix,
    });
    closers.push(() => worker.close());
    await expect
      .poll(async () => (await a.queue.getJobs(['waiting', 'active'])).length, { timeout: 10_000 })
      .toBe(0);
    await worker.close();
    expect(await a.enqueuer.enqueue(ids, listed)).toBe(ids.length);
    expect([...(await ordersInJobs(a.queue)).values()].every((n) => n === 1)).toBe(true);
  }, 60_000);

  it('imports a batch one order after the other; the order the ERP fails goes to a job of its own, the others are linked', async () => {
    world = await startOrderWorld();
    const memory = new MemoryErp();
    const ctx = { ...(await world.context()), erp: await openMemoryErp(memory) };
    const prefix = `batch${prefixes++}`;
    const { queue, enqueuer, redis: connection } = replica(ctx, prefix, 1);
    await poll(ctx, (ids, listed) => enqueuer.enqueue(ids, listed).then(() => undefined));
    const jobs = (await queue.getJobs(['waiting'])) as Job<ImportBatchPayload>[];
    const job = jobs.find((j) => j.name === 'order-imports');
    const ids = job!.data.orders.map((o) => o.id);
    expect(ids.length).toBeGreaterThan(10);
    const first = ids[0]!;

    memory.failNext.set('importOrder', 1);
    const hold = new ImportHold({ holdMs: 60_000, logger: silentLogger() });
    const result = (await orderBatchImportJob.process(job!, {
      runtime: runtimeOf(ctx, enqueuer, hold),
    })) as ImportBatchResult;

    expect(result.retriedAlone).toEqual([first]);
    expect(Object.keys(result.outcomes).map(Number)).toEqual(ids.slice(1));
    expect(Object.values(result.outcomes).every((o) => o === 'imported')).toBe(true);
    expect([...memory.imported.keys()].sort((x, y) => x - y)).toEqual(ids.slice(1));
    const repos = orderRepositoriesOf(ctx.store);
    expect(repos.links.count()).toBe(ids.length - 1);
    expect(repos.seen.queuedAmong(ids)).toEqual(new Set([first]));
    // Its own job, under its id, after the backoff, with the listed record (no GET).
    const alone = await queue.getJob(`order-${first}`);
    expect(await alone!.getState()).toBe('delayed');
    expect((alone!.data as ImportPayload).listed?.id).toBe(first);
    const claims = new ImportClaims(connection, queue);
    expect(await claims.ownerOf(first)).toBe(`order-${first}`);
    expect(await claims.ownerOf(ids[1]!)).toBeNull();
  }, 60_000);

  it("reads what the store knows of the batch's orders once: links made elsewhere, ERP-origin orders, lines kept or rewritten", async () => {
    world = await startOrderWorld();
    const memory = new MemoryErp();
    const ctx = { ...(await world.context()), erp: await openMemoryErp(memory) };
    const { queue, enqueuer } = replica(ctx, `known${prefixes++}`, 1);
    await poll(ctx, (ids, listed) => enqueuer.enqueue(ids, listed).then(() => undefined));
    const jobs = (await queue.getJobs(['waiting'])) as Job<ImportBatchPayload>[];
    const job = jobs.find((j) => j.name === 'order-imports')!;
    const orders = job.data.orders;
    const [kept, changed, linkedElsewhere, ours] = orders.map((order) => order.id) as [
      number,
      number,
      number,
      number,
    ];
    const repos = orderRepositoriesOf(ctx.store);
    const listedUnits = (id: number) => unitsOf(orders.find((order) => order.id === id)!.items);
    expect(repos.links.linesOf([kept]).get(kept)).toEqual(listedUnits(kept));
    // Lines stored from another record of the order than the one the job carries: the job's are linked.
    repos.links.replaceLines(changed, [{ sku: 'OLD', quantity: 9 }]);
    repos.links.link({
      platformOrderId: linkedElsewhere,
      erpRef: 'elsewhere',
      number: null,
      status: 'new',
      paymentStatus: 'unpaid',
      platformCreatedAt: null,
      lines: [],
    });
    repos.outgoing.recordIntent('ERP-1', 'h');
    repos.outgoing.markCreated('ERP-1', ours);

    const hold = new ImportHold({ holdMs: 60_000, logger: silentLogger() });
    const result = (await orderBatchImportJob.process(job, {
      runtime: runtimeOf(ctx, enqueuer, hold),
    })) as ImportBatchResult;

    expect(result.outcomes[linkedElsewhere]).toBe('already_in_erp');
    expect(result.outcomes[ours]).toBe('erp_origin');
    expect(result.outcomes[kept]).toBe('imported');
    expect(memory.imported.has(linkedElsewhere)).toBe(false);
    expect(memory.imported.has(ours)).toBe(false);
    expect(memory.imported.size).toBe(orders.length - 2);
    const lines = repos.links.linesOf([kept, changed, ours]);
    expect(lines.get(kept)).toEqual(listedUnits(kept));
    expect(lines.get(changed)).toEqual(listedUnits(changed));
    expect(lines.has(ours)).toBe(false);
    expect(repos.links.get(kept)?.erpRef).toBe(`M-${kept}`);
  }, 60_000);

  it('unparks and resolves the batch orders that were parked or rejected, and parks the one the ERP refuses now', async () => {
    world = await startOrderWorld();
    const memory = new MemoryErp();
    const ctx = { ...(await world.context()), erp: await openMemoryErp(memory) };
    const { queue, enqueuer } = replica(ctx, `marks${prefixes++}`, 1);
    await poll(ctx, (ids, listed) => enqueuer.enqueue(ids, listed).then(() => undefined));
    const jobs = (await queue.getJobs(['waiting'])) as Job<ImportBatchPayload>[];
    const job = jobs.find((j) => j.name === 'order-imports')!;
    const orders = job.data.orders;
    const refusedSku = orders
      .find((order) => order.items.some((item) => item.sku))!
      .items.find((i) => i.sku)!.sku!;
    const refusedIds = orders
      .filter((order) => order.items.some((item) => item.sku === refusedSku))
      .map((order) => order.id);
    const others = orders.map((order) => order.id).filter((id) => !refusedIds.includes(id));
    const [wasParked, wasRejected] = others as [number, number];
    const repos = orderRepositoriesOf(ctx.store);
    // An earlier attempt parked one; an order elsewhere in the store stays parked.
    repos.parked.park({ platformOrderId: wasParked, number: null, code: 'erp_rejected', reason: 'earlier' });
    ctx.store.rejects.record({ pipeline: 'orders', key: String(wasParked), reason: 'parked: earlier' });
    ctx.store.rejects.record({ pipeline: 'orders', key: String(wasRejected), reason: 'parked: before' });
    repos.parked.park({ platformOrderId: 999_999, number: null, code: 'erp_rejected', reason: 'not ours' });
    // A refused order parked before too: refused again, it stays parked with one more attempt.
    repos.parked.park({
      platformOrderId: refusedIds[0]!,
      number: null,
      code: 'erp_rejected',
      reason: 'earlier',
    });
    memory.refusedSkus.add(refusedSku);

    const hold = new ImportHold({ holdMs: 60_000, logger: silentLogger() });
    const result = (await orderBatchImportJob.process(job, {
      runtime: runtimeOf(ctx, enqueuer, hold),
    })) as ImportBatchResult;

    expect(result.outcomes[wasParked]).toBe('imported');
    expect(result.outcomes[wasRejected]).toBe('imported');
    for (const id of refusedIds) expect(result.outcomes[id]).toBe('parked');
    const parked = repos.parked.list();
    expect(parked.map((p) => p.platformOrderId)).toEqual([...refusedIds, 999_999].sort((x, y) => x - y));
    expect(parked.find((p) => p.platformOrderId === refusedIds[0])?.attempts).toBe(2);
    const open = ctx.store.rejects.openAmong(
      'orders',
      orders.map((order) => String(order.id)),
    );
    expect(open).toEqual(new Set(refusedIds.map(String)));
  }, 60_000);

  it('the ERP failing imports in a row: the batch goes back to wait with the queue held, and does the undecided orders when it returns', async () => {
    world = await startOrderWorld();
    const memory = new MemoryErp();
    const ctx = { ...(await world.context()), erp: await openMemoryErp(memory) };
    const { queue, enqueuer } = replica(ctx, `held${prefixes++}`, 1);
    await poll(ctx, (ids, listed) => enqueuer.enqueue(ids, listed).then(() => undefined));
    const jobs = (await queue.getJobs(['waiting'])) as Job<ImportBatchPayload>[];
    const job = jobs.find((j) => j.name === 'order-imports');
    const ids = job!.data.orders.map((o) => o.id);
    const queuedBefore = orderRepositoriesOf(ctx.store).seen.queued();

    let now = 1_000_000;
    const hold = new ImportHold({ holdMs: 60_000, logger: silentLogger(), now: () => now });
    const runtime = runtimeOf(ctx, enqueuer, hold);
    memory.failNext.set('importOrder', 3);
    await expect(orderBatchImportJob.process(job!, { runtime })).rejects.toMatchObject({
      name: 'RateLimitError',
    });
    expect(runtime.limited).toEqual([60_000]);
    expect(memory.imported.size).toBe(0);
    // Nothing handed to jobs of their own: the batch keeps them.
    expect(await queue.getJobs(['delayed'])).toEqual([]);
    expect(orderRepositoriesOf(ctx.store).seen.queued()).toEqual(queuedBefore);

    now += 60_000;
    const result = (await orderBatchImportJob.process(job!, { runtime })) as ImportBatchResult;
    expect(hold.reason()).toBeNull();
    expect(result.retriedAlone).toEqual([]);
    expect(Object.keys(result.outcomes).map(Number)).toEqual(ids);
    expect(memory.imported.size).toBe(ids.length);

    // Done again (a job redone after a crash): every order decided before, none imported twice.
    const again = (await orderBatchImportJob.process(job!, { runtime })) as ImportBatchResult;
    expect(again.decidedBefore).toEqual(ids);
    expect(memory.count('importOrder')).toBe(3 + ids.length);
  }, 60_000);
});
