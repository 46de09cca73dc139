import type { Logger } from 'pino';
import type { AccountConfig, ApiConfig, Config, Deployment } from '../config.js';
import { DEFAULT_ACCOUNT } from '../config/accountEntrySchema.js';
import { createDaemon, type Daemon } from '../queue/createDaemon.js';
import {
  createAccountMetrics,
  createMetrics,
  DASHBOARD_PASSWORD_ENV,
  startOpsServer,
  type Metrics,
  type OpsAccount,
} from '../server/index.js';
import { storeMetricsReader } from '../server/storeMetricsReader.js';
import { closeSyncContext, createSyncContext } from '../sync/context.js';
import { runPipeline } from '../sync/runPipeline.js';
import { StoreAccountMismatchError } from '../sync/StoreAccountMismatchError.js';
import { consoleSources } from './consoleSources.js';
import type { RunSummary, SyncContext } from '../sync/frame/types.js';

/** The daemon with its ops server listening: `start()` connects to Redis and runs the workers and schedules. */
export interface OpenDaemon {
  /** The ops server's URL (the console at `/`, `/healthz`, `/readyz`, `/metrics`, Bull Board at `/queues`). */
  readonly url: string;
  start(): Promise<void>;
  /** The configuration was read again (SIGHUP): each account's API key and base URL are checked, then used. */
  reload(apis: ReadonlyMap<string, ApiConfig>): Promise<void>;
  /** Stops the schedules, lets running jobs finish within shutdownGraceSeconds, closes everything. */
  close(): Promise<void>;
}

export interface OpenDaemonHooks {
  /** Every finished run (a scan's when all its batches are done), after the metrics counted it. */
  onRun?: (summary: RunSummary, account: string) => void;
}

/** One account's daemon: its context (store, ERP adapter, API client), metrics view and queues. */
interface AccountDaemon {
  name: string;
  ctx: SyncContext;
  metrics: Metrics;
  daemon: Daemon;
  config: Config;
  /** Several accounts: this one's key answered as another company at start, so it alone does not run. */
  refused?: StoreAccountMismatchError;
}

/** The single-account daemon (the demo's, and `start` with a configuration without `accounts:`). */
export function openDaemon(config: Config, logger: Logger, hooks: OpenDaemonHooks = {}): Promise<OpenDaemon> {
  return openDeployment(
    { multi: false, accounts: [{ name: DEFAULT_ACCOUNT, config }], names: [DEFAULT_ACCOUNT] },
    logger,
    hooks,
  );
}

/**
 * What `erp-sync start` runs: per account, the pipelines' context, the metrics and the daemon
 * (queues under the account's own prefix, workers, schedules, watch); one ops server for all.
 * Each account's daemon is the single-account one: its pauses, rate limits, leases and account
 * check touch its own queues and store only, so one account's trouble never holds another's jobs.
 */
export async function openDeployment(
  deployment: Deployment,
  logger: Logger,
  hooks: OpenDaemonHooks = {},
): Promise<OpenDaemon> {
  const shared = deployment.multi ? createAccountMetrics() : undefined;
  const opened: AccountDaemon[] = [];
  const closeOpened = async (): Promise<void> => {
    for (const account of opened) {
      await account.daemon.close().catch(() => undefined);
      await closeSyncContext(account.ctx).catch(() => undefined);
    }
  };
  try {
    for (const account of deployment.accounts) {
      const log = deployment.multi ? logger.child({ account: account.name }) : logger;
      opened.push(await openAccount(account, log, shared, hooks));
    }
  } catch (error) {
    await closeOpened();
    throw error;
  }
  const first = opened[0]!;
  const readinessOf = (account: AccountDaemon) =>
    account.refused === undefined
      ? account.daemon.readiness()
      : Promise.resolve({ ready: false, reasons: [`not started: ${account.refused.message}`] });
  const readiness = async () => {
    const states = await Promise.all(
      opened.map(async (account) => ({ account, state: await readinessOf(account) })),
    );
    return {
      ready: states.every(({ state }) => state.ready),
      reasons: states.flatMap(({ account, state }) =>
        deployment.multi
          ? state.reasons.map((reason) => `account ${account.name}: ${reason}`)
          : state.reasons,
      ),
    };
  };
  const accounts: OpsAccount[] | undefined = deployment.multi
    ? opened.map((account) => ({
        name: account.name,
        queues: account.daemon.queues,
        metrics: account.metrics,
        console: consoleSources(account.config, account.ctx, account.daemon.queues),
        readiness: () => readinessOf(account),
      }))
    : undefined;
  let ops: Awaited<ReturnType<typeof startOpsServer>>;
  try {
    // The ops server's settings are top-level only: every account has the same.
    ops = await startOpsServer({
      host: first.config.server.host,
      port: first.config.server.port,
      metrics: first.metrics,
      readiness,
      queues: first.daemon.queues,
      dashboardPassword: process.env[DASHBOARD_PASSWORD_ENV],
      logger,
      console: consoleSources(first.config, first.ctx, first.daemon.queues),
      readOnly: first.config.server.dashboard.readOnly,
      ...(accounts ? { accounts } : {}),
    });
  } catch (error) {
    await closeOpened();
    throw error;
  }
  return {
    url: ops.url,
    async start() {
      // Side by side: an account whose Redis prefix or store waits does not hold the others' start.
      await Promise.all(opened.map((account) => startAccount(account, deployment.multi, logger)));
      // Every account another company's: nothing runs, the start fails as a single account's does (exit 65).
      const refused = opened.map((account) => account.refused);
      if (refused[0] && refused.every((error) => error !== undefined)) throw refused[0];
    },
    async reload(apis) {
      await Promise.all(
        opened.map(async (account) => {
          const api = apis.get(account.name);
          if (api) await account.daemon.reload(api);
        }),
      );
    },
    async close() {
      try {
        await Promise.all(opened.map((account) => account.daemon.close()));
        await ops.close();
      } finally {
        for (const account of opened) await closeSyncContext(account.ctx);
      }
    },
  };
}

async function openAccount(
  account: AccountConfig,
  logger: Logger,
  shared: ReturnType<typeof createAccountMetrics> | undefined,
  hooks: OpenDaemonHooks,
): Promise<AccountDaemon> {
  const { config } = account;
  // The metrics need the store, which the context opens; API answers before that are not counted.
  const sink: { metrics?: Metrics } = {};
  const ctx = await createSyncContext(config, logger, {
    onResponse: (info) => sink.metrics?.recordApiResponse(info),
  });
  // Open rejects and parked orders are read from the store at each scrape (dashboards, alerts).
  const reader = storeMetricsReader(ctx.store);
  const live = shared ? shared.forAccount(account.name, reader) : createMetrics({ store: reader });
  sink.metrics = live;
  live.setPaused(false);
  const daemon = createDaemon({
    config,
    logger,
    ctx,
    runPipeline,
    onRun: (summary) => {
      live.recordRun(summary);
      hooks.onRun?.(summary, account.name);
    },
    onItems: (pipeline, counts) => live.recordItems(pipeline, counts),
    onPausedChange: (paused) => live.setPaused(paused),
    onJobFailure: (queue, code) => live.recordJobFailure(queue, code),
    onImportsHeldChange: (held) => live.setImportsHeld(held),
    onFlowStuck: (pipeline) => live.recordFlowStuck(pipeline),
    onWatchState: (state) => live.setErpWatching(state.watching),
    onAccountState: (state) => live.setAccountState(state),
  });
  return { name: account.name, ctx, metrics: live, daemon, config };
}

/**
 * One account's start. A single account whose store belongs to another company refuses the start
 * (exit 65); among several, that account alone stays stopped (its metrics and /readyz say why)
 * and the others run: one account's wrong key must not stop every shop of the deployment.
 */
async function startAccount(account: AccountDaemon, multi: boolean, logger: Logger): Promise<void> {
  try {
    await account.daemon.start();
  } catch (error) {
    if (!multi || !(error instanceof StoreAccountMismatchError)) throw error;
    account.refused = error;
    account.metrics.setAccountState('mismatch');
    logger.error(
      { account: account.name, err: error.message },
      'this account does not run: its store belongs to another company; the other accounts go on',
    );
    await account.daemon.close().catch(() => undefined);
  }
}
