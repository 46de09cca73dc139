import { Job, type Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { ApiOrder } from '../api/schemas.js';
import { chunks } from '../store/chunks.js';
import type { Store } from '../store/index.js';
import { ImportClaims, type ClaimRequest } from './importClaims.js';
import type { ImportBatchPayload, ImportPayload } from './jobTypes.js';
import { importJobIds } from './importJobId.js';

/** Orders of one `order-imports` job at most: a list page. */
export const ORDERS_PER_IMPORT_JOB = 100;

/** Jobs added at once (one MULTI: Redis runs nothing else meanwhile). */
const ADD_CHUNK = 100;

export interface ImportEnqueuerOptions {
  queue: Queue;
  redis: Redis;
  store: Store;
  /** Import jobs run at once (importConcurrency): the batches are cut so that each runner gets as many. */
  concurrency: number;
  /** Delay of a failed order's own job: the queue's first backoff. */
  retryDelayMs: number;
}

export interface ImportEnqueuer {
  /**
   * The poll's orders: returns how many were handed to a job now (the others are a live job's
   * already). `ordersAfter`: given for one list page as the scan reads it, at most how many orders
   * the scan may still hand over (pageJobs); without it the orders are all there are.
   */
  enqueue(
    orderIds: readonly number[],
    listed: ReadonlyMap<number, ApiOrder>,
    ordersAfter?: number,
  ): Promise<number>;
  /** A batch's orders that failed: each to an import job of its own (retried alone, failed alone). */
  handOver(orders: readonly { orderId: number; listed?: ApiOrder }[]): Promise<void>;
  /** The orders are decided in the store: their claims go. */
  release(orderIds: readonly number[]): Promise<void>;
}

/**
 * The daemon's fan-out of order imports. Orders the list carried in full go into `order-imports`
 * jobs of up to ORDERS_PER_IMPORT_JOB orders (no request to the platform: only the ERP and the
 * store); an order that needs a GET (queued by an earlier poll, or a parked one due) gets an
 * `order-import` job of its own, as does an order a batch failed to import. Every order is first
 * claimed for its job (ImportClaims), so that two polls or two replicas never hand one order to
 * two live jobs; an order whose own job failed and is kept is retried under that job's id.
 */
export function createImportEnqueuer(options: ImportEnqueuerOptions): ImportEnqueuer {
  const { queue, store } = options;
  const claims = new ImportClaims(options.redis, queue);

  const addSingles = async (
    orders: readonly { orderId: number; listed?: ApiOrder; jobId: string }[],
    delay = 0,
  ): Promise<void> => {
    for (const part of chunks(orders, ADD_CHUNK))
      await queue.addBulk(
        part.map(({ orderId, listed, jobId }) => ({
          name: 'order-import',
          data: (listed ? { orderId, listed } : { orderId }) satisfies ImportPayload,
          opts: { jobId, ...(delay > 0 ? { delay } : {}) },
        })),
      );
  };

  const retrySingles = async (jobIds: readonly string[]): Promise<void> => {
    for (const jobId of jobIds) {
      const job = await Job.fromId(queue, jobId);
      const state = await job?.getState();
      if (state === 'failed' || state === 'completed') await job!.retry(state);
    }
  };

  return {
    async enqueue(orderIds, listed, ordersAfter) {
      const inFull = orderIds.filter((id) => listed.has(id));
      const runners =
        ordersAfter === undefined
          ? options.concurrency
          : pageJobs(inFull.length, ordersAfter, options.concurrency);
      const batches = cutBatches(inFull, runners);
      const stamp = Date.now().toString(36);
      const ownerOf = new Map<number, string>();
      for (const batch of batches) {
        const jobId = `orders-${batch[0]}-${batch.at(-1)}-${stamp}`;
        for (const id of batch) ownerOf.set(id, jobId);
      }
      const singleIds = importJobIds(store, orderIds);
      const requests: ClaimRequest[] = orderIds.map((orderId) => {
        const single = singleIds.get(orderId)!;
        return { orderId, single, owner: ownerOf.get(orderId) ?? single };
      });
      const results = await claims.claim(requests);
      const claimed = new Set<number>();
      const retried: string[] = [];
      const singles: { orderId: number; jobId: string }[] = [];
      results.forEach((result, k) => {
        const { orderId, single } = requests[k]!;
        if (result === 'taken') return;
        // An order whose own job is kept finished (failed, say): that job again, under its id (`erp-sync jobs`).
        if (result === 'retry-single') retried.push(single);
        else if (ownerOf.has(orderId)) claimed.add(orderId);
        else singles.push({ orderId, jobId: single });
      });
      const jobs = batches
        .map((batch) => batch.filter((id) => claimed.has(id)))
        .filter((batch) => batch.length > 0)
        .map((batch) => ({
          name: 'order-imports',
          data: { orders: batch.map((id) => listed.get(id)!) } satisfies ImportBatchPayload,
          opts: { jobId: ownerOf.get(batch[0]!)! },
        }));
      for (const part of chunks(jobs, ADD_CHUNK)) await queue.addBulk(part);
      await addSingles(singles);
      await retrySingles(retried);
      return claimed.size + singles.length + retried.length;
    },

    async handOver(orders) {
      if (orders.length === 0) return;
      const jobIds = importJobIds(
        store,
        orders.map((order) => order.orderId),
      );
      const withIds = orders.map((order) => ({ ...order, jobId: jobIds.get(order.orderId)! }));
      await claims.transfer(new Map(withIds.map((o) => [o.orderId, o.jobId])));
      await addSingles(withIds, options.retryDelayMs);
      // An id refused because the order's own job is kept finished (it failed before): that job again.
      await retrySingles(withIds.map((o) => o.jobId));
    },

    release: (orderIds) => claims.release(orderIds),
  };
}

/** Orders of a page's job near the scan's end at least: a job costs its own queue and store round trips. */
const SMALLEST_PAGE_JOB = 25;

/**
 * How many jobs one list page's `count` orders go into while the scan goes on: one while many
 * orders follow; near the scan's end, jobs of about the remaining orders' share per runner, so
 * that the last jobs to start are small and no runner is left alone with a large one at the end.
 */
export function pageJobs(count: number, ordersAfter: number, runners: number): number {
  if (count === 0) return 0;
  const share = Math.ceil((count + ordersAfter) / runners);
  const size = Math.min(ORDERS_PER_IMPORT_JOB, Math.max(SMALLEST_PAGE_JOB, share));
  return Math.ceil(count / size);
}

/**
 * Consecutive runs of the ids (oldest first), at most ORDERS_PER_IMPORT_JOB each, in a number of
 * batches that is a multiple of `runners` (and at most one per order), sized evenly: every runner
 * gets as many orders, none is left alone with the tail.
 */
export function cutBatches(ids: readonly number[], runners: number): number[][] {
  if (ids.length === 0) return [];
  const rounds = Math.ceil(ids.length / (runners * ORDERS_PER_IMPORT_JOB));
  const count = Math.min(ids.length, runners * rounds);
  const out: number[][] = [];
  let start = 0;
  for (let k = 0; k < count; k++) {
    const end = Math.round(((k + 1) * ids.length) / count);
    out.push(ids.slice(start, end));
    start = end;
  }
  return out;
}
