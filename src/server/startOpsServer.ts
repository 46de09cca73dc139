import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter } from '@bull-board/fastify';
import type { Queue } from 'bullmq';
import { fastify, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from '../logger.js';
import { basicAuth } from './basicAuth.js';
import type { ConsoleSources } from './console/ConsoleSources.js';
import { accountConsolePrefix, accountPath, withAccountPaths } from './console/accountPaths.js';
import { accountsIndex } from './console/accountsIndex.js';
import { registerConsole, SECURITY_HEADERS } from './console/registerConsole.js';
import { QUEUE_STATES, type Metrics } from './createMetrics.js';
import { isLoopbackHost } from './isLoopbackHost.js';
import { LoopLagMonitor } from './LoopLagMonitor.js';
import { OpsServerError } from './OpsServerError.js';

/** The environment variable that holds the dashboard password (read by the config, never logged). */
export const DASHBOARD_PASSWORD_ENV = 'ERP_SYNC_DASHBOARD_PASSWORD';

export const DEFAULT_OPS_HOST = '127.0.0.1';
export const DEFAULT_OPS_PORT = 9464;

export interface Readiness {
  ready: boolean;
  /** Why not ready, one short sentence each (e.g. "Redis is unreachable"). */
  reasons: string[];
}

export interface OpsServerOptions {
  host?: string;
  /** 0: any free port. */
  port?: number;
  metrics: Metrics;
  readiness: () => Promise<Readiness>;
  /** Shown in Bull Board at /queues; their job counts feed `erp_sync_queue_jobs` at each scrape. */
  queues: Queue[];
  /** Required when host is not a loopback address: guards /queues and /metrics with basic auth. */
  dashboardPassword?: string | undefined;
  logger: Logger;
  /** /healthz turns 503 when the event loop lagged more than this within the last 10 s. Default 5 s. */
  maxLoopLagMs?: number;
  /** The operator's console at `/` (absent: none). */
  console?: ConsoleSources;
  /**
   * `server.dashboard.readOnly`: Bull Board without retry/clean/remove and the console without
   * actions. Absent: read-only beyond loopback, not on a loopback host.
   */
  readOnly?: boolean | undefined;
  /**
   * Several accounts in one process (issue 22): each one's queues (in Bull Board as
   * `ACCOUNT.QUEUE`), metrics view and console (at `/accounts/ACCOUNT/`, with an index at `/`);
   * `queues` and `console` are then not used. `readiness` is the whole process's.
   */
  accounts?: readonly OpsAccount[];
}

/** One account of several, as the ops server shows it. */
export interface OpsAccount {
  name: string;
  queues: Queue[];
  /** The account's view of the shared metrics: its queue counts are recorded with its label. */
  metrics: Metrics;
  console?: ConsoleSources;
  readiness: () => Promise<Readiness>;
}

export interface OpsServer {
  /** e.g. `http://127.0.0.1:9464`. */
  url: string;
  close(): Promise<void>;
}

/** Bounds a queue-count refresh: a scrape while Redis is away must still answer, with the last counts. */
const QUEUE_COUNT_TIMEOUT_MS = 1_000;

/** Whether the dashboards may change anything: as set, else only on a loopback host. */
export function dashboardReadOnly(host: string, setting: boolean | undefined): boolean {
  return setting ?? !isLoopbackHost(host);
}

/**
 * The ops server: `/healthz` (alive, event loop responsive), `/readyz` (the daemon's readiness
 * with reasons), `/metrics` (Prometheus), Bull Board at `/queues` and the console at `/`. Beyond
 * loopback, everything but health and readiness needs basic auth with the dashboard password, the
 * server refuses to start without one, and the dashboards are read-only unless
 * `server.dashboard.readOnly` is false.
 */
export async function startOpsServer(options: OpsServerOptions): Promise<OpsServer> {
  const host = options.host ?? DEFAULT_OPS_HOST;
  const port = options.port ?? DEFAULT_OPS_PORT;
  const password = options.dashboardPassword || undefined;
  if (!isLoopbackHost(host) && password === undefined) {
    throw new OpsServerError(
      `server.host is ${host}, not a loopback address: set ${DASHBOARD_PASSWORD_ENV} so that /queues and /metrics require basic auth, or listen on 127.0.0.1`,
      { key: 'server.host', env: DASHBOARD_PASSWORD_ENV },
    );
  }
  const log = options.logger.child({ module: 'server' });
  const groups: {
    name: string | undefined;
    queues: Queue[];
    metrics: Metrics;
    console?: ConsoleSources | undefined;
    readiness: () => Promise<Readiness>;
  }[] = options.accounts
    ? [...options.accounts]
    : [
        {
          name: undefined,
          queues: options.queues,
          metrics: options.metrics,
          console: options.console,
          readiness: options.readiness,
        },
      ];
  const lag = new LoopLagMonitor();
  const maxLagMs = options.maxLoopLagMs ?? 5_000;
  const readOnly = dashboardReadOnly(host, options.readOnly);
  const app = fastify({ logger: false });
  const health = () => {
    const eventLoopLagMs = Math.round(lag.maxLagMs());
    return {
      healthy: eventLoopLagMs <= maxLagMs,
      eventLoopLagMs,
      uptimeSeconds: Math.round(process.uptime()),
    };
  };

  app.get('/healthz', async (_request, reply) => {
    const { healthy, eventLoopLagMs, uptimeSeconds } = health();
    return reply.code(healthy ? 200 : 503).send({
      status: healthy ? 'ok' : 'event loop blocked',
      eventLoopLagMs,
      uptimeSeconds,
    });
  });

  app.get('/readyz', async (_request, reply) => {
    let state: Readiness;
    try {
      state = await options.readiness();
    } catch (error) {
      log.warn({ err: error }, 'readiness check failed');
      state = { ready: false, reasons: ['the readiness check failed'] };
    }
    return reply.code(state.ready ? 200 : 503).send({ ready: state.ready, reasons: state.reasons });
  });

  await app.register(async (guarded: FastifyInstance) => {
    if (password !== undefined) guarded.addHook('onRequest', basicAuth(password));
    guarded.get('/metrics', async (_request, reply) => {
      await Promise.all(groups.map((group) => refreshQueueCounts(group.queues, group.metrics, log)));
      return reply.header('content-type', options.metrics.contentType).send(await options.metrics.render());
    });
    const board = new FastifyAdapter();
    board.setBasePath('/queues');
    createBullBoard({
      queues: groups.flatMap((group) =>
        group.queues.map(
          (queue) =>
            new BullMQAdapter(queue, {
              readOnlyMode: readOnly,
              ...(group.name === undefined ? {} : { prefix: `${group.name}.` }),
            }),
        ),
      ),
      serverAdapter: board,
      options: { uiConfig: { boardTitle: 'erp-sync' } },
    });
    await guarded.register(
      async (queues: FastifyInstance) => {
        // Bull Board's read-only mode hides the buttons and refuses each write; refusing every
        // method that can write here too keeps a route it might not guard from changing a queue.
        if (readOnly) queues.addHook('onRequest', refuseWrites);
        queues.addHook('onSend', withoutFontCdn);
        await queues.register(board.registerPlugin());
      },
      { prefix: '/queues' },
    );
    for (const group of groups) {
      const sources = group.console;
      if (!sources) continue;
      const consoleOptions = {
        sources,
        readOnly,
        readiness: group.readiness,
        health,
        logger: options.logger,
      };
      if (group.name === undefined) {
        await guarded.register(registerConsole, consoleOptions);
        continue;
      }
      const account = group.name;
      await guarded.register(
        async (scope: FastifyInstance) => {
          scope.addHook('onSend', async (_request, reply, payload) => {
            const location = reply.getHeader('location');
            if (typeof location === 'string' && location.startsWith('/'))
              reply.header('location', accountPath(location, account));
            const type = reply.getHeader('content-type');
            return typeof payload === 'string' && typeof type === 'string' && type.startsWith('text/html')
              ? withAccountPaths(payload, account)
              : payload;
          });
          await scope.register(registerConsole, consoleOptions);
        },
        { prefix: accountConsolePrefix(account) },
      );
    }
    if (options.accounts)
      guarded.get('/', async (_request, reply) =>
        reply
          .type('text/html; charset=utf-8')
          .headers(SECURITY_HEADERS)
          .send(await accountsIndex(options.accounts!)),
      );
  });

  try {
    await app.listen({ host, port });
  } catch (error) {
    await app.close();
    throw error;
  }
  lag.start();
  const address = app.server.address();
  const boundPort = typeof address === 'object' && address ? address.port : port;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  const url = `http://${urlHost}:${boundPort}`;
  log.info({ url, auth: password !== undefined, readOnly }, 'ops server listening');
  let closing: Promise<void> | undefined;
  return {
    url,
    close: () => {
      closing ??= (async () => {
        lag.stop();
        await app.close();
      })();
      return closing;
    },
  };
}

/**
 * Bull Board's page loads its fonts from Google's CDN: a request to a third party from every
 * operator's browser, and an error where the ops network has no way out. Without the link the
 * page uses the browser's own sans-serif.
 */
async function withoutFontCdn(
  _request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
): Promise<unknown> {
  const type = reply.getHeader('content-type');
  if (typeof payload !== 'string' || typeof type !== 'string' || !type.startsWith('text/html'))
    return payload;
  return payload.replace(/<link\b[^>]*\bhref="https:\/\/fonts\.googleapis\.com\/[^>]*>/g, '');
}

async function refuseWrites(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  if (request.method === 'GET' || request.method === 'HEAD') return;
  await reply.code(405).send({
    error: 'read_only',
    message: 'the dashboard is read-only (server.dashboard.readOnly); set it to false to allow changes',
  });
}

async function refreshQueueCounts(queues: Queue[], metrics: Metrics, log: Logger): Promise<void> {
  await Promise.all(
    queues.map(async (queue) => {
      let timer: NodeJS.Timeout | undefined;
      try {
        const [counts, bound] = await Promise.race([
          Promise.all([queue.getJobCounts(...QUEUE_STATES), queue.getGlobalConcurrency()]),
          new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(new Error('timed out')), QUEUE_COUNT_TIMEOUT_MS);
          }),
        ]);
        metrics.setQueueJobs(queue.name, counts);
        metrics.setQueueConcurrency(queue.name, bound);
      } catch (error) {
        log.debug(
          { queue: queue.name, err: error },
          'queue counts unavailable; /metrics keeps the last ones',
        );
      } finally {
        clearTimeout(timer);
      }
    }),
  );
}
