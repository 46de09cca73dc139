import type { Client, Notification } from 'pg';
import type { Logger } from '../../logger.js';
import { ERP_CHANGES, type ErpChange, type ErpWatch, type ErpWatchState } from '../ErpWatch.js';
import { connectionSettings } from './connectSql.js';
import type { SqlErpConfig } from './sqlConfigSchema.js';
import { toSqlError } from './SqlErpError.js';

export interface ListenOptions {
  config: SqlErpConfig & { listen: NonNullable<SqlErpConfig['listen']> };
  /** The parts this adapter reads: an empty payload means all of them, and so does a reconnect. */
  changes: readonly ErpChange[];
  onChange: (change: ErpChange) => void;
  onState?: (state: ErpWatchState) => void;
  logger: Logger;
  /** Reconnect backoff: doubles from min to max, with jitter. Default 500 ms to 30 s. */
  reconnectMinMs?: number;
  reconnectMaxMs?: number;
  /** A `select 1` on the listening connection this often: a silently dead socket is found. */
  pingMs?: number;
}

const PING_TIMEOUT_MS = 10_000;

/**
 * PostgreSQL LISTEN on a dedicated client (not the knex pool: a pooled connection is handed to
 * reads and closed when idle, and a LISTEN belongs to one session). Each notification's payload
 * names the changed part (`stock`, `prices`, `products`, `orderEvents`, `outgoingOrders`), sent by
 * the integrator's trigger (`erp-sync erp notify-trigger`); notifications of one part within
 * `debounceMs` report it once. A lost connection (server restart, `pg_terminate_backend`, a dead
 * socket found by the ping) is a warning and the pipelines fall back to their schedules; it is
 * reconnected with backoff, and once listening again every part is reported once, since
 * notifications sent meanwhile are lost.
 */
export async function listenForChanges(options: ListenOptions): Promise<ErpWatch> {
  const { config, logger } = options;
  const { channel, debounceMs } = config.listen;
  const minMs = options.reconnectMinMs ?? 500;
  const maxMs = options.reconnectMaxMs ?? 30_000;
  const { Client: PgClient } = (await import('pg')).default;
  const pending = new Map<ErpChange, NodeJS.Timeout>();
  let client: Client | null = null;
  let stopped = false;
  let failures = 0;
  let reconnectTimer: NodeJS.Timeout | undefined;
  let warnedPayloads = new Set<string>();

  const report = (change: ErpChange): void => {
    if (stopped || pending.has(change)) return;
    const timer = setTimeout(() => {
      pending.delete(change);
      if (!stopped) options.onChange(change);
    }, debounceMs);
    timer.unref();
    pending.set(change, timer);
  };

  const onNotification = (message: Notification): void => {
    if (message.channel !== channel) return;
    const payload = (message.payload ?? '').trim();
    if (payload === '') return options.changes.forEach(report);
    if ((ERP_CHANGES as readonly string[]).includes(payload)) return report(payload as ErpChange);
    if (!warnedPayloads.has(payload)) {
      warnedPayloads.add(payload);
      logger.warn(
        { channel, payload: payload.slice(0, 100), expected: ERP_CHANGES },
        'a notification names no part of the ERP: ignored',
      );
    }
  };

  const connect = async (): Promise<Client> => {
    const next = new PgClient({
      ...(connectionSettings(config) as object),
      keepAlive: true,
      application_name: 'erp-sync listen',
    });
    next.on('error', (error) => lost(next, error));
    next.on('end', () => lost(next, new Error('the connection ended')));
    try {
      await next.connect();
      await next.query(`LISTEN "${channel}"`);
    } catch (error) {
      next.removeAllListeners('end');
      await next.end().catch(() => undefined);
      throw error;
    }
    next.on('notification', onNotification);
    return next;
  };

  const lost = (which: Client, error: Error): void => {
    if (stopped || which !== client) return;
    client = null;
    which.removeAllListeners('notification');
    which.removeAllListeners('end');
    which.on('error', () => undefined);
    void which.end().catch(() => undefined);
    const reason = toSqlError(error, 'listening').message;
    logger.warn(
      { channel, err: reason },
      'lost the PostgreSQL LISTEN connection: changes wait for the schedules until it is back',
    );
    options.onState?.({ watching: false, reason });
    scheduleReconnect();
  };

  const scheduleReconnect = (): void => {
    if (stopped) return;
    const step = Math.min(maxMs, minMs * 2 ** Math.min(failures, 16));
    const delay = Math.round(step / 2 + Math.random() * (step / 2));
    failures += 1;
    reconnectTimer = setTimeout(() => void reconnect(), delay);
    reconnectTimer.unref();
  };

  const reconnect = async (): Promise<void> => {
    if (stopped) return;
    try {
      const next = await connect();
      if (stopped) {
        await next.end().catch(() => undefined);
        return;
      }
      client = next;
      logger.info({ channel, attempts: failures }, 'listening for ERP changes again');
      failures = 0;
      warnedPayloads = new Set();
      options.onState?.({ watching: true });
      // Notifications sent while disconnected are lost: one run of every part catches up.
      options.changes.forEach(report);
    } catch (error) {
      logger.debug({ channel, err: toSqlError(error, 'listening').message }, 'LISTEN reconnect failed');
      scheduleReconnect();
    }
  };

  const ping = setInterval(() => {
    const current = client;
    if (!current) return;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('no answer to a ping')), PING_TIMEOUT_MS);
    });
    Promise.race([current.query('select 1'), timeout])
      .catch((error: Error) => lost(current, error))
      .finally(() => clearTimeout(timer));
  }, options.pingMs ?? 30_000);
  ping.unref();

  try {
    client = await connect();
  } catch (error) {
    clearInterval(ping);
    throw toSqlError(error, 'listening');
  }
  logger.info({ channel, changes: options.changes }, 'listening for ERP changes (PostgreSQL LISTEN)');
  options.onState?.({ watching: true });

  return {
    async stop() {
      stopped = true;
      clearInterval(ping);
      clearTimeout(reconnectTimer);
      for (const timer of pending.values()) clearTimeout(timer);
      pending.clear();
      const current = client;
      client = null;
      if (current) {
        current.removeAllListeners('end');
        current.on('error', () => undefined);
        await current.end().catch(() => undefined);
      }
    },
  };
}
