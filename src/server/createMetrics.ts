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
  return createMetricFamilies(false, options.now ?? Date.now).bind(undefined, options.store);
}

/**
 * The metrics of several accounts in one process (issue 22): one registry, one family per metric
 * name, each with an `account` label, so `/metrics` is one exposition (two registries of the same
 * names cannot be merged: prom-client's Registry.merge refuses duplicate names, and Prometheus a
 * second HELP of one family).
 */
export interface AccountMetrics {
  readonly registry: Registry;
  /** The account's view: every erp_sync_* series it records carries `account="<name>"`. */
  forAccount(name: string, store?: StoreMetricsReader): Metrics;
  render(): Promise<string>;
  readonly contentType: string;
}

export function createAccountMetrics(options: { now?: () => number } = {}): AccountMetrics {
  const families = createMetricFamilies(true, options.now ?? Date.now);
  return {
    registry: families.registry,
    forAccount: (name, store) => families.bind(name, store),
    render: () => families.registry.metrics(),
    contentType: families.registry.contentType,
  };
}

type Labels = Record<string, string>;

/** Every metric once in a registry of its own; `bind` gives an account's (or the only) view of them. */
function createMetricFamilies(labelled: boolean, now: () => number) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const names = <T extends string>(...rest: T[]): ('account' | T)[] =>
    labelled ? ['account', ...rest] : rest;
  const items = new Counter({
    name: 'erp_sync_items_total',
    help: 'Items handled by the pipelines, by outcome',
    labelNames: names('pipeline', 'outcome'),
    registers: [registry],
  });
  const runs = new Counter({
    name: 'erp_sync_runs_total',
    help: 'Finished pipeline runs, by status (ok, failed)',
    labelNames: names('pipeline', 'status'),
    registers: [registry],
  });
  const lastSuccess = new Gauge({
    name: 'erp_sync_last_success_timestamp_seconds',
    help: 'Unix time of the last pipeline run that finished without error',
    labelNames: names('pipeline'),
    registers: [registry],
  });
  const apiRequests = new Counter({
    name: 'erp_sync_api_requests_total',
    help: 'API v2 requests, every attempt (retries and 429s included); route is the spec path template',
    labelNames: names('method', 'route', 'status'),
    registers: [registry],
  });
  const apiDuration = new Histogram({
    name: 'erp_sync_api_request_duration_seconds',
    help: 'Duration of API v2 request attempts until the whole response body was read',
    labelNames: names('method', 'route'),
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const queueJobs = new Gauge({
    name: 'erp_sync_queue_jobs',
    help: 'Jobs per BullMQ queue and state',
    labelNames: names('queue', 'state'),
    registers: [registry],
  });
  const queueConcurrency = new Gauge({
    name: 'erp_sync_queue_global_concurrency',
    help: 'Jobs of a BullMQ queue active at once across every replica (pushes: bulk requests in flight); jobs beyond it stay in erp_sync_queue_jobs{state="waiting"}',
    labelNames: names('queue'),
    registers: [registry],
  });
  const paused = new Gauge({
    name: 'erp_sync_paused',
    help: '1 while the queues are paused by a fatal error (e.g. the API key was refused), else 0',
    labelNames: names(),
    registers: [registry],
  });
  const jobFailures = new Counter({
    name: 'erp_sync_job_failures_total',
    help: 'Failed job attempts (retried with backoff, or failed for good), by queue and error code',
    labelNames: names('queue', 'code'),
    registers: [registry],
  });
  const flowsStuck = new Counter({
    name: 'erp_sync_flows_stuck_total',
    help: 'Push flows (a scan and its batches) failed for holding their pipeline past their limit; their items are sent again by the next scan',
    labelNames: names('pipeline'),
    registers: [registry],
  });
  const importsHeld = new Gauge({
    name: 'erp_sync_imports_held',
    help: '1 while order imports wait because the last ones failed in a row on the ERP side (not answering, or refusing a right), else 0',
    labelNames: names(),
    registers: [registry],
  });
  const accountMismatch = new Gauge({
    name: 'erp_sync_account_mismatch',
    help: "1 while the API key answers as another company than the store's: every queue is paused, else 0",
    labelNames: names(),
    registers: [registry],
  });
  const accountUnverified = new Gauge({
    name: 'erp_sync_account_unverified',
    help: "1 while the store's account cannot be verified (GET /account fails): jobs are held, else 0",
    labelNames: names(),
    registers: [registry],
  });
  let erpWatch: Gauge<string> | undefined;
  const addStore = storeGauges(registry, names, now);

  function bind(account: string | undefined, store?: StoreMetricsReader): Metrics {
    const base: Labels = account === undefined ? {} : { account };
    const l = (labels: Labels = {}): Labels => ({ ...base, ...labels });
    if (store) addStore(account, store);
    paused.set(l(), 0);
    // Present at 0 from the start, so that the first stuck flow is an increase an alert sees.
    for (const pipeline of ['stock', 'prices']) flowsStuck.inc(l({ pipeline }), 0);
    importsHeld.set(l(), 0);
    accountMismatch.set(l(), 0);
    accountUnverified.set(l(), 0);
    function countItems(pipeline: string, counts: ItemCounts): void {
      for (const [outcome, field] of Object.entries(ITEM_OUTCOMES)) {
        const value = counts[field];
        if (typeof value === 'number' && value >= 0) items.inc(l({ pipeline, outcome }), value);
      }
    }
    return {
      registry,
      contentType: registry.contentType,
      recordRun(summary, finishedAt = new Date()) {
        const failed = summary.error !== undefined;
        runs.inc(l({ pipeline: summary.pipeline, status: failed ? 'failed' : 'ok' }));
        if (!failed) lastSuccess.set(l({ pipeline: summary.pipeline }), finishedAt.getTime() / 1000);
        // A dry run sends nothing: its "sent" would count items that never went anywhere.
        if (!summary.dryRun) countItems(summary.pipeline, summary);
      },
      recordItems: countItems,
      recordApiResponse(info) {
        const route = routeTemplate(info.path);
        const status = info.status === null ? NO_RESPONSE_STATUS : String(info.status);
        apiRequests.inc(l({ method: info.method, route, status }));
        apiDuration.observe(l({ method: info.method, route }), info.durationMs / 1000);
      },
      setQueueJobs(queue, counts) {
        for (const state of QUEUE_STATES) queueJobs.set(l({ queue, state }), counts[state] ?? 0);
      },
      setQueueConcurrency(queue, bound) {
        if (bound === null) queueConcurrency.remove(l({ queue }));
        else queueConcurrency.set(l({ queue }), bound);
      },
      setPaused(value) {
        paused.set(l(), value ? 1 : 0);
      },
      recordJobFailure(queue, code) {
        jobFailures.inc(l({ queue, code }));
      },
      recordFlowStuck(pipeline) {
        flowsStuck.inc(l({ pipeline }));
      },
      setAccountState(state) {
        accountMismatch.set(l(), state === 'mismatch' ? 1 : 0);
        accountUnverified.set(l(), state === 'unverified' ? 1 : 0);
      },
      setImportsHeld(value) {
        importsHeld.set(l(), value ? 1 : 0);
      },
      setErpWatching(value) {
        erpWatch ??= new Gauge({
          name: 'erp_sync_erp_watch_up',
          help: '1 while the ERP watch reports changes at once (drop folder, PostgreSQL LISTEN), 0 while it is lost and the schedules alone run the pipelines',
          labelNames: names(),
          registers: [registry],
        });
        erpWatch.set(l(), value ? 1 : 0);
      },
      render: () => registry.metrics(),
    };
  }
  return { registry, bind };
}

/**
 * Gauges computed from the stores when Prometheus scrapes (prom-client `collect`), so they are
 * right even when another process (a CLI `orders retry`, a second worker) changed a store. A
 * store that cannot be read fails no scrape: its gauges keep their last values and
 * erp_sync_store_read_errors_total counts the failure.
 */
function storeGauges(
  registry: Registry,
  names: <T extends string>(...rest: T[]) => ('account' | T)[],
  now: () => number,
): (account: string | undefined, store: StoreMetricsReader) => void {
  const readers: { base: Labels; store: StoreMetricsReader }[] = [];
  const readErrors = new Counter({
    name: 'erp_sync_store_read_errors_total',
    help: 'Scrapes at which the store could not be read for the reject and parked order gauges',
    labelNames: names(),
    registers: [],
  });
  /** Each store read on its own: one that fails counts an error and keeps its last values, the others go on. */
  const each = (update: (store: StoreMetricsReader, base: Labels) => void) => () => {
    for (const { base, store } of readers) {
      try {
        update(store, base);
      } catch {
        readErrors.inc(base);
      }
    }
  };
  /** A per-pipeline gauge redrawn at each scrape from each store's last good read. */
  const perPipeline = (read: (store: StoreMetricsReader) => [string, number][]) => {
    const last = new Map<StoreMetricsReader, [string, number][]>();
    return (gauge: Gauge<string>) => {
      each((store) => last.set(store, read(store)))();
      gauge.reset();
      for (const { base, store } of readers)
        for (const [pipeline, value] of last.get(store) ?? []) gauge.set({ ...base, pipeline }, value);
    };
  };
  const drawRejects = perPipeline((store) => {
    const counts = store.openRejects();
    return [...new Set([...PIPELINE_ORDER, ...counts.keys()])].map((p) => [p, counts.get(p) ?? 0]);
  });
  const rejects: Gauge<string> = new Gauge({
    name: 'erp_sync_rejects_open',
    help: 'Open (unresolved) rejects per pipeline: ERP records that could not be synced',
    labelNames: names('pipeline'),
    registers: [],
    collect: () => drawRejects(rejects),
  });
  const parked = new Gauge({
    name: 'erp_sync_orders_parked',
    help: 'Platform orders parked because the ERP refused them (retried with back-off)',
    labelNames: names(),
    registers: [],
    collect: each((store, base) => parked.set(base, store.parkedOrders())),
  });
  const oldest = new Gauge({
    name: 'erp_sync_orders_parked_oldest_age_seconds',
    help: 'Seconds since the longest-parked order was first parked; 0 when none is parked',
    labelNames: names(),
    registers: [],
    collect: each((store, base) => {
      const at = store.oldestParkedAt();
      oldest.set(base, at ? Math.max(0, (now() - at.getTime()) / 1000) : 0);
    }),
  });
  const drawReadAge = perPipeline((store) =>
    [...store.erpReadsCommittedAt()].map(([p, at]) => [p, Math.max(0, (now() - at.getTime()) / 1000)]),
  );
  const readAge: Gauge<string> = new Gauge({
    name: 'erp_sync_erp_read_age_seconds',
    help: 'Seconds since the pipeline last committed an ERP read (full or incremental, every item acknowledged); absent before the first',
    labelNames: names('pipeline'),
    registers: [],
    collect: () => drawReadAge(readAge),
  });
  return (account, store) => {
    // Registered with the first store, so that metrics without a store have none of these.
    if (readers.length === 0)
      // The error counter last: the gauges' collect (which counts the errors) runs before it is read.
      for (const metric of [rejects, parked, oldest, readAge, readErrors]) registry.registerMetric(metric);
    const base: Labels = account === undefined ? {} : { account };
    readErrors.inc(base, 0);
    readers.push({ base, store });
  };
}
