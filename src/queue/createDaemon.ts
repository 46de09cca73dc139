import type { ErpWatch, ErpWatchState } from '../erp/ErpWatch.js';
import { Queue, type Worker } from 'bullmq';
import type { Logger } from 'pino';
import type { ApiConfig, Config } from '../config.js';
import type { ItemCounts, RunSummary, SyncContext } from '../sync/frame/types.js';
import type { AccountState } from '../sync/storeAccount.js';
import { createAccountGate } from './createAccountGate.js';
import { applyBulkConcurrency } from './applyBulkConcurrency.js';
import { enqueueRun } from './enqueueRun.js';
import { FLOW_PIPELINES, startFlowLeaseKeeper, type FlowLeaseKeeper } from './flowLeaseKeeper.js';
import { flowLimitMs } from './flowLimit.js';
import { createWorkers } from './createWorkers.js';
import { defaultJobOptions } from './jobOptions.js';
import { checkRegistry, JOB_REGISTRY, jobOptionsOf, type JobRegistry } from './jobRegistry.js';
import type { JobRuntime } from './jobRuntime.js';
import { pushJobName, type PipelineName, type PushPayload, type QueueName } from './jobTypes.js';
import { packBatch } from './packedBatch.js';
import { ImportHold } from './importHold.js';
import { createImportEnqueuer } from './importEnqueuer.js';
import { importConcurrency } from '../sync/orders/importConcurrency.js';
import { PauseController, readPauseState } from './pauseController.js';
import { createRedisConnection, waitForRedis } from './redisConnection.js';
import { redactRedisUrl } from './redactRedisUrl.js';
import { reportQueueErrors } from './reportQueueErrors.js';
import { enabledPipelines, startSchedules, type Schedules } from './schedules.js';
import { startErpWatch } from './startErpWatch.js';
import { failStuckFlow, flowAlive, inspectFlow } from './stuckFlow.js';
import { inSpan, queueTelemetry } from '../tracing/activeTracing.js';

export interface Readiness {
  ready: boolean;
  reasons: string[];
}

export interface DaemonOptions {
  config: Config;
  logger: Logger;
  /** The pipelines' context (client, ERP adapter, store), built by the caller; closed by the caller. */
  ctx: SyncContext;
  runPipeline: JobRuntime['runPipeline'];
  onRun?: (summary: RunSummary) => void;
  /** Items an import job handled (the orders poll only hands them over). */
  onItems?: (pipeline: PipelineName, counts: ItemCounts) => void;
  onPausedChange?: (paused: boolean) => void;
  /** A job attempt failed (retried or not). */
  onJobFailure?: (queue: QueueName, code: string) => void;
  /** Order imports held (the ERP failed them in a row) or going again. */
  onImportsHeldChange?: (held: boolean) => void;
  /** A push flow held its pipeline past its limit: failed, its lease released. */
  onFlowStuck?: (pipeline: string) => void;
  /** The store's account check: verified, unverified (jobs held) or another company (queues paused). */
  onAccountState?: (state: AccountState) => void;
  /** The ERP watch (instant triggers) started, lost its connection or resumed. */
  onWatchState?: (state: ErpWatchState) => void;
  /** The job kinds the workers run (default: JOB_REGISTRY); checked before anything starts. */
  registry?: JobRegistry;
}

export interface Daemon {
  readonly queues: Queue[];
  /** Connects to Redis (waiting while it is away), adopts a recorded pause, starts workers and schedules. */
  start(): Promise<void>;
  readiness(): Promise<Readiness>;
  /** The configuration was read again (SIGHUP): new API credentials are checked, then used. */
  reload(api: ApiConfig): Promise<void>;
  schedules(): Schedules | null;
  /** Stops the schedules, lets running jobs finish within shutdownGraceSeconds, closes Redis. */
  close(): Promise<void>;
}

export function createDaemon(options: DaemonOptions): Daemon {
  const { config, logger } = options;
  const log = logger.child({ module: 'daemon' });
  const prefix = config.redis.prefix;
  const producer = createRedisConnection(config.redis.url, 'producer');
  const workerConnection = createRedisConnection(config.redis.url, 'worker');
  const errors = reportQueueErrors(log, config.redis.url);
  errors.connection('producer', producer);
  errors.connection('worker', workerConnection);

  const jobOptions = defaultJobOptions(config.queue);
  const queueOptions = { connection: producer, prefix, defaultJobOptions: jobOptions, ...queueTelemetry() };
  const runs = new Queue('runs', queueOptions);
  const pushes = new Queue('pushes', queueOptions);
  const imports = new Queue('imports', queueOptions);
  const queues: Queue[] = [runs, pushes, imports];
  for (const queue of queues) errors.queue(queue);

  const shutdown = new AbortController();
  const registry = options.registry ?? JOB_REGISTRY;
  const workers = new Map<QueueName, Worker>();
  let schedules: Schedules | null = null;
  let watch: ErpWatch | null = null;
  let keeper: FlowLeaseKeeper | null = null;

  const pause = new PauseController({
    queues,
    redis: producer,
    prefix,
    probe: async () => {
      await options.ctx.client.account.get();
    },
    probeMs: config.queue.probeSeconds * 1000,
    logger: log,
    onChange: (paused) => options.onPausedChange?.(paused),
  });

  const gate = createAccountGate(config, log, options.ctx, workers, (state) =>
    options.onAccountState?.(state),
  );

  const importHold = new ImportHold({
    holdMs: config.queue.probeSeconds * 1000,
    logger: log,
    onChange: (held) => options.onImportsHeldChange?.(held),
  });

  const importEnqueuer = createImportEnqueuer({
    queue: imports,
    redis: producer,
    store: options.ctx.store,
    concurrency: importConcurrency(config, options.ctx.erp),
    retryDelayMs: Math.round(config.queue.backoffSeconds * 1000),
  });

  const runtime: JobRuntime = {
    ctx: options.ctx,
    logger: log,
    shutdown: shutdown.signal,
    runPipeline: options.runPipeline,
    pause: (reason, code) => pause.pause(reason, code),
    rateLimit: async (queue, ms, reason = 'the platform asked us to slow down (429)') => {
      log.warn({ queue, waitMs: ms }, `${reason}: the queue waits`);
      await workers.get(queue)?.rateLimit(ms);
    },
    recordRun: (summary) => options.onRun?.(summary),
    recordJobFailure: (queue, failure) => options.onJobFailure?.(queue, failure.code),
    imports: importHold,
    recordItems: (pipeline, counts) => options.onItems?.(pipeline, counts),
    enqueuePush: async (parent, batch, scanOwner) => {
      const name = pushJobName(batch.pipeline);
      const payload: PushPayload = { batch: packBatch(batch), scanOwner };
      await pushes.add(name, payload, {
        parent: { id: parent.id!, queue: parent.queueQualifiedName },
        ...jobOptionsOf(name, registry),
      });
    },
    flowAlive: (scanJobId) => flowAlive(runs, scanJobId),
    enqueueImports: (orderIds, listed, ordersAfter) => importEnqueuer.enqueue(orderIds, listed, ordersAfter),
    handOverImports: (orders) => importEnqueuer.handOver(orders),
    releaseImports: (orderIds) => importEnqueuer.release(orderIds),
  };

  const trigger = async (pipeline: PipelineName, reason: 'schedule' | 'start' | 'watch'): Promise<void> => {
    // The root of the run's trace: BullMQ carries it to the job, the job to its push jobs.
    await inSpan(`trigger ${pipeline}`, { 'erp_sync.pipeline': pipeline, 'erp_sync.trigger': reason }, () =>
      enqueueRun(runs, pipeline, { trigger: reason }),
    );
  };

  return {
    queues,
    async start() {
      // A job name without a handler: refuse before anything runs.
      checkRegistry(registry);
      await gate.start();
      const warn = setInterval(
        () => log.warn({ redis: redactRedisUrl(config.redis.url) }, 'waiting for Redis'),
        10_000,
      );
      try {
        await Promise.all([waitForRedis(producer, 2 ** 31 - 1), waitForRedis(workerConnection, 2 ** 31 - 1)]);
      } finally {
        clearInterval(warn);
      }
      await pause.adopt();
      await applyBulkConcurrency(pushes, config, log);
      for (const [queue, worker] of createWorkers({
        registry,
        runtime,
        config,
        connection: workerConnection,
        guard: (processor) => gate.guard(processor),
      }))
        workers.set(queue, worker);
      keeper = startFlowLeaseKeeper({
        store: options.ctx.store,
        pipelines: FLOW_PIPELINES,
        ttlMs: config.sync.lease.ttlSeconds * 1000,
        inspect: (scanJobId) => inspectFlow(runs, scanJobId),
        limitMs: (batches) => flowLimitMs(batches, config),
        failStuck: (scanJobId, error) => failStuckFlow(runs, pushes, scanJobId, error.message),
        onStuck: (pipeline, error) => {
          log.warn({ pipeline, err: error.message }, 'failed a flow that held its pipeline too long');
          options.onFlowStuck?.(pipeline);
        },
        onError: (error) => log.warn({ err: error.message }, 'could not renew a flow lease'),
      });
      gate.workersStarted();
      for (const w of workers.values()) {
        errors.worker(w);
        w.on('failed', (job, error) => {
          if (job)
            log.warn(
              { job: job.id, name: job.name, attempts: job.attemptsMade, err: error.message },
              'job failed',
            );
        });
      }
      schedules = startSchedules(config.schedules, (pipeline) => trigger(pipeline, 'schedule'), log);
      watch = await startErpWatch(
        options.ctx.erp,
        new Set(enabledPipelines(config.schedules)),
        (pipeline) => trigger(pipeline, 'watch'),
        log,
        (state) => options.onWatchState?.(state),
      );
      // A catch-up run of every enabled pipeline at start ("off" means never, not even now).
      for (const pipeline of enabledPipelines(config.schedules)) {
        await trigger(pipeline, 'start').catch((error: Error) =>
          log.warn({ pipeline, err: error.message }, 'could not enqueue the start run'),
        );
      }
    },
    async readiness() {
      if (producer.status !== 'ready')
        return { ready: false, reasons: ['Redis is unreachable (reconnecting)'] };
      // A pause recorded in Redis by another replica counts too.
      const paused = pause.paused ?? (await readPauseState(producer, prefix).catch(() => null));
      const reasons = paused ? [`paused: ${paused.reason}`] : [];
      const account = gate.reason();
      if (account) reasons.push(account);
      const held = importHold.reason();
      if (held) reasons.push(held);
      return { ready: reasons.length === 0, reasons };
    },
    schedules: () => schedules,
    reload: (api) => gate.reload(api),
    async close() {
      gate.close();
      await watch?.stop();
      await schedules?.stop();
      pause.close();
      const graceMs = config.shutdownGraceSeconds * 1000;
      const closing = Promise.all([...workers.values()].map((worker) => worker.close()));
      // Running jobs get most of the grace time to end by themselves, then are told to stop sending.
      const natural = await settlesWithin(closing, graceMs * 0.7);
      if (!natural) {
        shutdown.abort();
        if (!(await settlesWithin(closing, graceMs * 0.3))) {
          log.warn('jobs still running at the end of the grace time: left for the next start to recover');
          await Promise.all([...workers.values()].map((worker) => worker.close(true).catch(() => undefined)));
        }
      }
      // After the workers: a flow still waiting (its batches left for the next start) lapses after the TTL.
      keeper?.stop();
      await Promise.all(queues.map((queue) => queue.close().catch(() => undefined)));
      producer.disconnect();
      workerConnection.disconnect();
    },
  };
}

async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([
      promise.then(
        () => true as const,
        () => true as const,
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
