import type { Logger } from 'pino';
import { createApiClient } from '../api/createApiClient.js';
import type { Config } from '../config.js';
import { openErpAdapter } from '../erp/createErpAdapter.js';
import { openStore } from '../store/index.js';
import { createOrderReservations } from './reservations.js';
import type { ReservationSource, RequestCounter, SyncContext } from './types.js';

const WRITE_METHODS = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);

export interface CreateSyncContextOptions {
  reservations?: ReservationSource;
  onProgress?: SyncContext['onProgress'];
  signal?: AbortSignal;
}

/** Builds the client, the ERP adapter (loaded and opened) and the store from the validated configuration. */
export async function createSyncContext(
  config: Config,
  logger: Logger,
  options: CreateSyncContextOptions = {},
): Promise<SyncContext> {
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
    },
  });
  const store = openStore(config.store.path);
  let erp;
  try {
    erp = await openErpAdapter(config.erp, logger.child({ module: 'erp' }));
  } catch (error) {
    store.close();
    await client.close();
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
