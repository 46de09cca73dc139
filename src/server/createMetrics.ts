import type { JobState } from 'bullmq';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { ResponseInfo } from '../api/transport.js';
import type { AccountState } from '../sync/storeAccount.js';
import { PIPELINE_ORDER } from '../domain/pipelineNames.js';
import type { ItemCounts, RunSummary } from '../sync/frame/types.js';
import { routeTemplate } from './routeTemplate.js';
import type { StoreMetricsReader } from './storeMetricsReader.js';

/** Outcomes of `erp_sync_items_total`, each taken from the RunSummary field of the same meaning. */
export const ITEM_OUTCOMES = {
  read: 'read',
  unchanged: 'unchanged',
  sent: 'sent',
  applied: 'applied',
  rejected: 'rejected',
  not_found: 'notFound',
  failed: 'failed',
} as const satisfies Record<string, keyof RunSummary>;

/**
 * The job states BullMQ 6 reports in `getJobCounts()`; each becomes one `state` label value. (v6
 * has no separate "paused" list: a paused queue keeps its jobs in waiting, see erp_sync_paused.)
 */
export const QUEUE_STATES = [
  'waiting',
  'active',
  'delayed',
  'prioritized',
  'waiting-children',
  'completed',
  'failed',
] as const satisfies readonly JobState[];

/** The status label of an attempt that got no HTTP answer (network error, timeout, abort). */
export const NO_RESPONSE_STATUS = 'none';

/**
 * The daemon's Prometheus metrics in a registry of their own (never prom-client's global one, so
 * two daemons or a test in one process never mix counts). Labels carry only pipeline names, route
 * templates, methods, statuses and queue names: never a path, an id, a key or a URL.
 */
export interface Metrics {
  readonly registry: Registry;
  /** Items of a finished run by outcome, the run by status, and the last success time. */
  recordRun(summary: RunSummary, finishedAt?: Date): void;
  /** Items handled outside a run (an import job), added to `erp_sync_items_total`. */
  recordItems(pipeline: string, counts: ItemCounts): void;
  /** One API attempt (retries and 429s included): pass as the client's `onResponse`. */
  recordApiResponse(info: ResponseInfo): void;
  /** Job counts of one queue, by state, as returned by BullMQ's `getJobCounts()`. */
  setQueueJobs(queue: string, counts: Record<string, number>): void;
  /**
   * The global concurrency in Redis of one queue (the pushes queue's: `queue.bulkConcurrency`),
   * shared by every replica; null: none, the gauge is absent for that queue.
   */
  setQueueConcurrency(queue: string, bound: number | null): void;
  setPaused(paused: boolean): void;
  /** A job attempt that failed (retried or not), by queue and error code. */
  recordJobFailure(queue: string, code: string): void;
  /** A push flow held its pipeline past its limit and was failed. */
  recordFlowStuck(pipeline: string): void;
  /**
   * The store's account check (invariant 12): `erp_sync_account_mismatch` is 1 while another
   * company answers, `erp_sync_account_unverified` while the account cannot be read. Which
   * companies is for /readyz and the log, never a label.
   */
  setAccountState(state: AccountState): void;
  /** Order imports held because the ERP failed the last ones in a row. */
  setImportsHeld(held: boolean): void;
  /**
   * The ERP watch (instant triggers) sees changes (true) or lost its connection (false); the
   * gauge is absent in a daemon whose adapter has no watch.
   */
  setErpWatching(watching: boolean): void;
  /** The text exposition for `/metrics`. */
  render(): Promise<string>;
  readonly contentType: string;
}

export interface MetricsOptions {
  /** Read at each scrape for open rejects and parked orders; without it those gauges are absent. */
  store?: StoreMetricsReader;
  /** Clock for the parked orders' age (tests). */
  now?: () => number;
}

export function createMetrics(options: MetricsOptions = {}): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  if (options.store) registerStoreGauges(registry, options.store, options.now ?? Date.now);
  const items = new Counter({
    name: 'erp_sync_items_total',
    help: 'Items handled by the pipelines, by outcome',
    labelNames: ['pipeline', 'outcome'] as const,
    registers: [registry],
  });
  const runs = new Counter({
    name: 'erp_sync_runs_total',
    help: 'Finished pipeline runs, by status (ok, failed)',
    labelNames: ['pipeline', 'status'] as const,
    registers: [registry],
  });
  const lastSuccess = new Gauge({
    name: 'erp_sync_last_success_timestamp_seconds',
    help: 'Unix time of the last pipeline run that finished without error',
    labelNames: ['pipeline'] as const,
    registers: [registry],
  });
  const apiRequests = new Counter({
    name: 'erp_sync_api_requests_total',
    help: 'API v2 requests, every attempt (retries and 429s included); route is the spec path template',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const apiDuration = new Histogram({
    name: 'erp_sync_api_request_duration_seconds',
    help: 'Duration of API v2 request attempts until the whole response body was read',
    labelNames: ['method', 'route'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const queueJobs = new Gauge({
    name: 'erp_sync_queue_jobs',
    help: 'Jobs per BullMQ queue and state',
    labelNames: ['queue', 'state'] as const,
    registers: [registry],
  });
  const queueConcurrency = new Gauge({
    name: 'erp_sync_queue_global_concurrency',
    help: 'Jobs of a BullMQ queue active at once across every replica (pushes: bulk requests in flight); jobs beyond it stay in erp_sync_queue_jobs{state="waiting"}',
    labelNames: ['queue'] as const,
    registers: [registry],
  });
  const paused = new Gauge({
    name: 'erp_sync_paused',
    help: '1 while the queues are paused by a fatal error (e.g. the API key was refused), else 0',
    registers: [registry],
  });
  paused.set(0);
  const jobFailures = new Counter({
    name: 'erp_sync_job_failures_total',
    help: 'Failed job attempts (retried with backoff, or failed for good), by queue and error code',
    labelNames: ['queue', 'code'] as const,
    registers: [registry],
  });
  const flowsStuck = new Counter({
    name: 'erp_sync_flows_stuck_total',
    help: 'Push flows (a scan and its batches) failed for holding their pipeline past their limit; their items are sent again by the next scan',
    labelNames: ['pipeline'] as const,
    registers: [registry],
  });
  // Present at 0 from the start, so that the first stuck flow is an increase an alert sees.
  for (const pipeline of ['stock', 'prices']) flowsStuck.inc({ pipeline }, 0);
  const importsHeld = new Gauge({
    name: 'erp_sync_imports_held',
    help: '1 while order imports wait because the last ones failed in a row on the ERP side (not answering, or refusing a right), else 0',
    registers: [registry],
  });
  importsHeld.set(0);
  const accountMismatch = new Gauge({
    name: 'erp_sync_account_mismatch',
    help: "1 while the API key answers as another company than the store's: every queue is paused, else 0",
    registers: [registry],
  });
  accountMismatch.set(0);
  const accountUnverified = new Gauge({
    name: 'erp_sync_account_unverified',
    help: "1 while the store's account cannot be verified (GET /account fails): jobs are held, else 0",
    registers: [registry],
  });
  accountUnverified.set(0);
  let erpWatch: Gauge | undefined;
  function countItems(pipeline: string, counts: ItemCounts): void {
    for (const [outcome, field] of Object.entries(ITEM_OUTCOMES)) {
      const value = counts[field];
      if (typeof value === 'number' && value >= 0) items.inc({ pipeline, outcome }, value);
    }
  }

  return {
    registry,
    contentType: registry.contentType,
    recordRun(summary, finishedAt = new Date()) {
      const failed = summary.error !== undefined;
      runs.inc({ pipeline: summary.pipeline, status: failed ? 'failed' : 'ok' });
      if (!failed) lastSuccess.set({ pipeline: summary.pipeline }, finishedAt.getTime() / 1000);
      // A dry run sends nothing: its "sent" would count items that never went anywhere.
      if (!summary.dryRun) countItems(summary.pipeline, summary);
    },
    recordItems: countItems,
    recordApiResponse(info) {
      const route = routeTemplate(info.path);
      const status = info.status === null ? NO_RESPONSE_STATUS : String(info.status);
      apiRequests.inc({ method: info.method, route, status });
      apiDuration.observe({ method: info.method, route }, info.durationMs / 1000);
    },
    setQueueJobs(queue, counts) {
      for (const state of QUEUE_STATES) queueJobs.set({ queue, state }, counts[state] ?? 0);
    },
    setQueueConcurrency(queue, bound) {
      if (bound === null) queueConcurrency.remove({ queue });
      else queueConcurrency.set({ queue }, bound);
    },
    setPaused(value) {
      paused.set(value ? 1 : 0);
    },
    recordJobFailure(queue, code) {
      jobFailures.inc({ queue, code });
    },
    recordFlowStuck(pipeline) {
      flowsStuck.inc({ pipeline });
    },
    setAccountState(state) {
      accountMismatch.set(state === 'mismatch' ? 1 : 0);
      accountUnverified.set(state === 'unverified' ? 1 : 0);
    },
    setImportsHeld(value) {
      importsHeld.set(value ? 1 : 0);
    },
    setErpWatching(value) {
      erpWatch ??= new Gauge({
        name: 'erp_sync_erp_watch_up',
        help: '1 while the ERP watch reports changes at once (drop folder, PostgreSQL LISTEN), 0 while it is lost and the schedules alone run the pipelines',
        registers: [registry],
      });
      erpWatch.set(value ? 1 : 0);
    },
    render: () => registry.metrics(),
  };
}

/**
 * Gauges computed from the store when Prometheus scrapes (prom-client `collect`), so they are
 * right even when another process (a CLI `orders retry`, a second worker) changed the store. A
 * store that cannot be read fails no scrape: the gauge keeps its last value and
 * erp_sync_store_read_errors_total counts the failure.
 */
function registerStoreGauges(registry: Registry, store: StoreMetricsReader, now: () => number): void {
  const readErrors = new Counter({
    name: 'erp_sync_store_read_errors_total',
    help: 'Scrapes at which the store could not be read for the reject and parked order gauges',
    registers: [registry],
  });
  const guarded = (update: () => void) => () => {
    try {
      update();
    } catch {
      readErrors.inc();
    }
  };
  const rejects = new Gauge({
    name: 'erp_sync_rejects_open',
    help: 'Open (unresolved) rejects per pipeline: ERP records that could not be synced',
    labelNames: ['pipeline'] as const,
    registers: [registry],
    collect: guarded(() => {
      const counts = store.openRejects();
      rejects.reset();
      for (const pipeline of PIPELINE_ORDER) rejects.set({ pipeline }, counts.get(pipeline) ?? 0);
      for (const [pipeline, n] of counts) rejects.set({ pipeline }, n);
    }),
  });
  const parked = new Gauge({
    name: 'erp_sync_orders_parked',
    help: 'Platform orders parked because the ERP refused them (retried with back-off)',
    registers: [registry],
    collect: guarded(() => parked.set(store.parkedOrders())),
  });
  const oldest = new Gauge({
    name: 'erp_sync_orders_parked_oldest_age_seconds',
    help: 'Seconds since the longest-parked order was first parked; 0 when none is parked',
    registers: [registry],
    collect: guarded(() => {
      const at = store.oldestParkedAt();
      oldest.set(at ? Math.max(0, (now() - at.getTime()) / 1000) : 0);
    }),
  });
  const readAge = new Gauge({
    name: 'erp_sync_erp_read_age_seconds',
    help: 'Seconds since the pipeline last committed an ERP read (full or incremental, every item acknowledged); absent before the first',
    labelNames: ['pipeline'] as const,
    registers: [registry],
    collect: guarded(() => {
      const committed = store.erpReadsCommittedAt();
      readAge.reset();
      for (const [pipeline, at] of committed)
        readAge.set({ pipeline }, Math.max(0, (now() - at.getTime()) / 1000));
    }),
  });
}
