import type { Command } from 'commander';
import { loadDeployment } from '../config.js';
import { describeError } from '../domain/errors.js';
import { createLogger } from '../createLogger.js';
import type { Logger } from '../logger.js';
import { startTracing } from '../tracing/startTracing.js';
import { openDeployment, type OpenDaemon } from './openDaemon.js';
import type { GlobalFlags } from './globalFlags.js';

/**
 * `erp-sync start`: the daemon in the foreground. Prints one JSON line on stdout once Redis is
 * connected, the workers run and the ops server listens; logs go to stderr. SIGTERM/SIGINT stop
 * the schedules, let running jobs finish within shutdownGraceSeconds, close everything, exit 0.
 * A store bound to another company refuses the start (exit 65, as run-once), before any job runs.
 * A configuration with `accounts:` runs every account (or `--account`'s only) in this process.
 */
export async function startDaemon(flags: GlobalFlags): Promise<void> {
  const deployment = loadDeployment({ file: flags.config, account: flags.account });
  // Log, tracing, Redis URL and ops server are top-level settings: every account has the same.
  const config = deployment.accounts[0]!.config;
  const logger = createLogger({ level: config.log.level });
  // Before the daemon: its queues and workers take BullMQ's telemetry option when they are made.
  const stopTracing = await startTracing(config, logger);
  const daemon = await openDeployment(deployment, logger);
  let stopping: Promise<void> | undefined;
  const stop = (signal: NodeJS.Signals): void => {
    stopping ??= (async () => {
      logger.info({ signal }, 'shutting down: schedules stopped, running jobs get the grace time');
      try {
        await daemon.close();
      } catch (error) {
        logger.error({ err: error }, 'error while shutting down');
      }
      await stopTracing().catch(() => undefined);
      logger.info('stopped');
      process.exit(0);
    })();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.on('SIGHUP', () => void reloadConfig(daemon, flags, logger));

  try {
    await daemon.start();
  } catch (error) {
    // Half started (Redis gone right after connecting): no process that answers /healthz without workers.
    await daemon.close().catch(() => undefined);
    throw error;
  }
  if (stopping) return;
  process.stdout.write(`${JSON.stringify({ event: 'ready', url: daemon.url })}\n`);
}

/**
 * SIGHUP (systemd's ExecReload): the configuration and CMS_API_KEY_FILE are read again and a
 * changed API key or base URL is used once it answers as the store's company. Other settings take
 * effect at the next start.
 */
async function reloadConfig(daemon: OpenDaemon, flags: GlobalFlags, logger: Logger): Promise<void> {
  logger.info('SIGHUP: reading the configuration again (the API key and base URL take effect now)');
  try {
    const deployment = loadDeployment({ file: flags.config, account: flags.account });
    await daemon.reload(new Map(deployment.accounts.map(({ name, config }) => [name, config.api])));
  } catch (error) {
    logger.error(
      { err: describeError(error) },
      'the configuration could not be reloaded: the daemon goes on with the one it has',
    );
  }
}

/** `erp-sync start`. */
export async function startCommand(_flags: unknown, command: Command): Promise<void> {
  await startDaemon(command.optsWithGlobals<GlobalFlags>());
}
