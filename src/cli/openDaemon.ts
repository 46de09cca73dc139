import type { Logger } from 'pino';
import type { ApiConfig, Config } from '../config.js';
import { createDaemon } from '../queue/createDaemon.js';
import { createMetrics, DASHBOARD_PASSWORD_ENV, startOpsServer, type Metrics } from '../server/index.js';
import { storeMetricsReader } from '../server/storeMetricsReader.js';
import { closeSyncContext, createSyncContext } from '../sync/context.js';
import { runPipeline } from '../sync/runPipeline.js';
import { consoleSources } from './consoleSources.js';
import type { RunSummary } from '../sync/frame/types.js';

/** The daemon with its ops server listening: `start()` connects to Redis and runs the workers and schedules. */
export interface OpenDaemon {
  /** The ops server's URL (the console at `/`, `/healthz`, `/readyz`, `/metrics`, Bull Board at `/queues`). */
  readonly url: string;
  start(): Promise<void>;
  /** The configuration was read again (SIGHUP): its API key and base URL are checked, then used. */
  reload(api: ApiConfig): Promise<void>;
  /** Stops the schedules, lets running jobs finish within shutdownGraceSeconds, closes everything. */
  close(): Promise<void>;
}

export interface OpenDaemonHooks {
  /** Every finished run (a scan's when all its batches are done), after the metrics counted it. */
  onRun?: (summary: RunSummary) => void;
}

/**
 * What `erp-sync start` runs, for it and for the demo: the pipelines' context, the metrics, the
 * daemon (queues, workers, schedules, watch) and the ops server, wired together.
 */
export async function openDaemon(
  config: Config,
  logger: Logger,
  hooks: OpenDaemonHooks = {},
): Promise<OpenDaemon> {
  // The metrics need the store, which the context opens; API answers before that are not counted.
  const sink: { metrics?: Metrics } = {};
  const ctx = await createSyncContext(config, logger, {
    onResponse: (info) => sink.metrics?.recordApiResponse(info),
  });
  // Open rejects and parked orders are read from the store at each scrape (dashboards, alerts).
  const live = createMetrics({ store: storeMetricsReader(ctx.store) });
  sink.metrics = live;
  live.setPaused(false);
  const daemon = createDaemon({
    config,
    logger,
    ctx,
    runPipeline,
    onRun: (summary) => {
      live.recordRun(summary);
      hooks.onRun?.(summary);
    },
    onItems: (pipeline, counts) => live.recordItems(pipeline, counts),
    onPausedChange: (paused) => live.setPaused(paused),
    onJobFailure: (queue, code) => live.recordJobFailure(queue, code),
    onImportsHeldChange: (held) => live.setImportsHeld(held),
    onFlowStuck: (pipeline) => live.recordFlowStuck(pipeline),
    onWatchState: (state) => live.setErpWatching(state.watching),
    onAccountState: (state) => live.setAccountState(state),
  });
  let ops: Awaited<ReturnType<typeof startOpsServer>>;
  try {
    ops = await startOpsServer({
      host: config.server.host,
      port: config.server.port,
      metrics: live,
      readiness: () => daemon.readiness(),
      queues: daemon.queues,
      dashboardPassword: process.env[DASHBOARD_PASSWORD_ENV],
      logger,
      console: consoleSources(config, ctx, daemon.queues),
      readOnly: config.server.dashboard.readOnly,
    });
  } catch (error) {
    await daemon.close().catch(() => undefined);
    await closeSyncContext(ctx).catch(() => undefined);
    throw error;
  }
  return {
    url: ops.url,
    start: () => daemon.start(),
    reload: (api) => daemon.reload(api),
    async close() {
      try {
        await daemon.close();
        await ops.close();
      } finally {
        await closeSyncContext(ctx);
      }
    },
  };
}
