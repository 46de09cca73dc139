import type { Command } from 'commander';
import { loadConfig } from '../config.js';
import { createLogger } from '../logger.js';
import { createDaemon } from '../queue/createDaemon.js';
import { createMetrics, DASHBOARD_PASSWORD_ENV, startOpsServer, type Metrics } from '../server/index.js';
import { storeMetricsReader } from '../server/storeMetricsReader.js';
import { closeSyncContext, createSyncContext } from '../sync/context.js';
import { runPipeline } from '../sync/runPipeline.js';

/**
 * `erp-sync start`: the daemon in the foreground. Prints one JSON line on stdout once Redis is
 * connected, the workers run and the ops server listens; logs go to stderr. SIGTERM/SIGINT stop
 * the schedules, let running jobs finish within shutdownGraceSeconds, close everything, exit 0.
 */
export async function startDaemon(configFile: string | undefined): Promise<void> {
  const config = loadConfig({ file: configFile });
  const logger = createLogger({ level: config.log.level });
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
    onRun: (summary) => live.recordRun(summary),
    onPausedChange: (paused) => live.setPaused(paused),
  });
  let ops: Awaited<ReturnType<typeof startOpsServer>> | undefined;
  let stopping: Promise<void> | undefined;
  const stop = (signal: NodeJS.Signals): void => {
    stopping ??= (async () => {
      logger.info({ signal }, 'shutting down: schedules stopped, running jobs get the grace time');
      try {
        await daemon.close();
        await ops?.close();
        await closeSyncContext(ctx);
      } catch (error) {
        logger.error({ err: error }, 'error while shutting down');
      }
      logger.info('stopped');
      process.exit(0);
    })();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);

  try {
    ops = await startOpsServer({
      host: config.server.host,
      port: config.server.port,
      metrics: live,
      readiness: () => daemon.readiness(),
      queues: daemon.queues,
      dashboardPassword: process.env[DASHBOARD_PASSWORD_ENV],
      logger,
    });
  } catch (error) {
    await daemon.close().catch(() => undefined);
    await closeSyncContext(ctx).catch(() => undefined);
    throw error;
  }
  await daemon.start();
  if (stopping) return;
  process.stdout.write(`${JSON.stringify({ event: 'ready', url: ops.url })}\n`);
}

export function registerStartCommand(program: Command): void {
  program
    .command('start')
    .description('run the daemon in the foreground: schedules, queues (Redis) and the ops server')
    .action(async (_flags: unknown, command: Command) => {
      await startDaemon(command.optsWithGlobals<{ config?: string }>().config);
    });
}
