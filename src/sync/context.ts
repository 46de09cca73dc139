import type { Logger } from 'pino';
import { createApiClient } from '../api/createApiClient.js';
import type { ResponseInfo } from '../api/transport.js';
import type { Config } from '../config.js';
import { createErpAdapter } from '../erp/createErpAdapter.js';
import { openStore } from '../store/index.js';
import { createOrderReservations } from './reservations.js';
import type { ReservationSource, RequestCounter, SyncContext } from './types.js';

const WRITE_METHODS = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);

export interface CreateSyncContextOptions {
  reservations?: ReservationSource;
  onProgress?: SyncContext['onProgress'];
  signal?: AbortSignal;
  /** Also told about every API attempt (e.g. the daemon's Prometheus metrics). */
  onResponse?: (info: ResponseInfo) => void;
}

/** Builds the client, the ERP adapter and the store from the validated configuration. */
export function createSyncContext(
  config: Config,
  logger: Logger,
  options: CreateSyncContextOptions = {},
): SyncContext {
  const requests: RequestCounter = { total: 0, writes: 0 };
  const client = createApiClient({
    baseUrl: config.api.baseUrl,
    apiKey: config.api.apiKey,
    authHeader: config.api.authHeader,
    timeoutMs: config.api.timeoutMs,
    maxSockets: config.api.maxSockets,
    retries: config.api.retries,
    deadlineMs: config.api.deadlineMs,
    logger: logger.child({ module: 'api' }),
    onResponse: (info) => {
      requests.total += 1;
      if (WRITE_METHODS.has(info.method.toUpperCase())) requests.writes += 1;
      options.onResponse?.(info);
    },
  });
  const store = openStore(config.store.path);
  let erp;
  try {
    erp = createErpAdapter(config.erp, logger.child({ module: 'erp' }));
  } catch (error) {
    store.close();
    throw error;
  }
  return {
    client,
    erp,
    store,
    config,
    logger,
    requests,
    reservations:
      options.reservations ??
      (config.orders.oversellGuard.enabled
        ? createOrderReservations({ client, store, config, logger: logger.child({ module: 'reservations' }) })
        : undefined),
    onProgress: options.onProgress,
    signal: options.signal,
  };
}

export async function closeSyncContext(ctx: SyncContext): Promise<void> {
  try {
    await ctx.erp.close();
  } finally {
    ctx.store.close();
    await ctx.client.close();
  }
}
