import type { ApiClient } from '../../api/createApiClient.js';
import { SchemaError } from '../../api/errors.js';
import { fullOrder } from '../../api/mappers.js';
import type { ApiOrderItem } from '../../api/schemas.js';
import type { Config } from '../../config.js';
import type { ErpCapabilities } from '../../erp/ErpCapabilities.js';
import type { Logger } from '../../logger.js';
import { orderRepositoriesOf } from '../../store/createOrderRepositories.js';
import type { HeldImports } from '../../store/OrderLinkRepository.js';
import type { Store } from '../../store/Store.js';
import { erpOriginIds } from './erpOriginIds.js';
import { orderListPages, type ListedRecord } from './orderListPages.js';
import { scanForUnseenOrders } from './orderPoll.js';
import type { ReservationSource } from '../frame/types.js';
import { unitsOf } from './unitsOf.js';

/** One look at the platform serves the chunks of a stock run prepared within this time. */
const TTL_MS = 1_000;

/**
 * Which imported orders the guard still holds. An ERP whose stock subtracts an order from its
 * import on (`stockSubtractsImportedOrders`: Tryton's forecast of a confirmed sale) has taken
 * every order imported before its stock read began: only later imports may be missing from the
 * read. Any other ERP takes an order at an unknown moment: it is held until an ERP event about it
 * (acknowledged) or for the window.
 */
export function heldImports(
  config: Config,
  capabilities: Pick<ErpCapabilities, 'stockSubtractsImportedOrders'>,
  nowMs: number,
  readStartedAt?: string,
): HeldImports {
  if (capabilities.stockSubtractsImportedOrders)
    return { since: readStartedAt ?? new Date(nowMs).toISOString(), untilAcknowledged: false };
  const windowMs = config.orders.oversellGuard.windowMinutes * 60_000;
  return { since: new Date(nowMs - windowMs).toISOString(), untilAcknowledged: true };
}

/**
 * The oversell guard: units of platform orders the ERP's stock does not reflect yet are held back
 * from stock pushes. Two sources, added up per SKU: the store (orders found but not imported,
 * parked, or imported and not yet taken by the ERP: see heldImports), and a look at the platform
 * for orders placed since the last orders poll (read only, one or two requests), which covers an
 * order placed between the ERP read and the push.
 */
export function createOrderReservations(deps: {
  client: ApiClient;
  store: Store;
  config: Config;
  logger: Logger;
  erp: { capabilities: Pick<ErpCapabilities, 'stockSubtractsImportedOrders'> };
  now?: () => number;
}): ReservationSource {
  const { store, config } = deps;
  const now = deps.now ?? Date.now;
  let fresh: { at: number; units: Promise<Map<string, number>> } | null = null;

  const platformUnits = async (client: ApiClient): Promise<Map<string, number>> => {
    const { seen, outgoing } = orderRepositoriesOf(store);
    const scan = await scanForUnseenOrders<ListedRecord>(
      orderListPages(client, config.orders.perPage),
      (ids) => seen.known(ids),
    );
    const units = new Map<string, number>();
    const erpOrigin = erpOriginIds(outgoing, scan.unseen);
    for (const listed of scan.unseen) {
      if (listed.status !== null && !config.orders.importStatuses.includes(listed.status)) continue;
      // Born in the ERP (created by erp-orders): the ERP's stock already counts its units.
      if (erpOrigin.has(listed.id)) continue;
      for (const line of unitsOf(await linesOf(client, listed)))
        units.set(line.sku, (units.get(line.sku) ?? 0) + line.quantity);
    }
    return units;
  };

  /** The lines of an order placed since the last poll: from the list, or fetched when it has none. */
  const linesOf = async (client: ApiClient, listed: ListedRecord): Promise<readonly ApiOrderItem[]> => {
    const listedFull = listed.order && fullOrder(listed.order);
    if (listedFull) return listedFull.items;
    try {
      const order = await client.orders.get(listed.id);
      return config.orders.importStatuses.includes(order.status) ? order.items : [];
    } catch (error) {
      if (!(error instanceof SchemaError)) throw error;
      deps.logger.warn(
        { orderId: listed.id, reason: error.message },
        'oversell guard: order record unreadable, its units are not held',
      );
      return [];
    }
  };

  /** Units per SKU of orders placed since the last poll, shared by the chunks of one stock run. */
  const placedUnits = (via: ApiClient): Promise<Map<string, number>> => {
    if (fresh && now() - fresh.at < TTL_MS) return fresh.units;
    const units = platformUnits(via);
    fresh = { at: now(), units };
    units.catch(() => (fresh = null));
    return units;
  };

  return {
    async unitsHeld(
      keys: string[],
      client?: ApiClient,
      readStartedAt?: string,
    ): Promise<Map<string, number>> {
      const out = new Map<string, number>();
      if (!config.orders.oversellGuard.enabled || keys.length === 0) return out;
      const placed = await placedUnits(client ?? deps.client);
      const rule = heldImports(config, deps.erp.capabilities, now(), readStartedAt);
      const units = orderRepositoriesOf(store).links.heldUnits(rule);
      for (const [sku, n] of placed) units.set(sku, (units.get(sku) ?? 0) + n);
      // Indexed, as in batches(): called once per chunk, this function is seldom optimised.
      for (let at = 0; at < keys.length; at++) {
        const key = keys[at]!;
        // A variant's line carries the variant SKU: `SKU/VARIANT` is matched by either part.
        const variant = key.includes('/') ? key.slice(key.indexOf('/') + 1) : null;
        const n = units.get(key) ?? (variant ? units.get(variant) : undefined) ?? 0;
        if (n > 0) out.set(key, n);
      }
      return out;
    },
  };
}
