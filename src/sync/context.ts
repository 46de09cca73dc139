import type { Logger } from 'pino';
import type { ApiClientOptions } from '../api/index.js';
import type { ResponseInfo } from '../api/transport.js';
import type { Config } from '../config.js';
import { openErpAdapter } from '../erp/createErpAdapter.js';
import { openStoreFromConfig } from '../store/index.js';
import { createPlatformClient } from './createPlatformClient.js';
import { createOrderReservations } from './orders/reservations.js';
import type { ReservationSource, SyncContext } from './frame/types.js';

export interface CreateSyncContextOptions {
  reservations?: ReservationSource;
  /** Also told about every API attempt (e.g. the daemon's Prometheus metrics). */
  onResponse?: (info: ResponseInfo) => void;
  /** The client's own bounds instead of the configured ones (a command a person waits for). */
  client?: Partial<ApiClientOptions>;
  /** Refuse a store that does not exist (StoreNotFoundError) instead of creating it: a command that only looks. */
  storeMustExist?: boolean;
}

/**
 * Builds the client, the ERP adapter (loaded and opened) and the store from the validated
 * configuration: once per process, shared by its runs (each run counts its own requests through
 * a view of the client).
 */
export async function createSyncContext(
  config: Config,
  logger: Logger,
  options: CreateSyncContextOptions = {},
): Promise<SyncContext> {
  const client = createPlatformClient(config.api, logger.child({ module: 'api' }), {
    ...options.client,
    ...(options.onResponse ? { onResponse: options.onResponse } : {}),
  });
  let store;
  try {
    store = openStoreFromConfig(config.store, { mustExist: options.storeMustExist ?? false });
  } catch (error) {
    await client.close();
    throw error;
  }
  let erp;
  try {
    // The factory binds the adapter's own `module` (a second binding would repeat the key).
    erp = await openErpAdapter(config.erp, logger);
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
    reservations:
      options.reservations ??
      (config.orders.oversellGuard.enabled
        ? createOrderReservations({
            client,
            store,
            config,
            erp,
            logger: logger.child({ module: 'reservations' }),
          })
        : undefined),
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
