import type { ApiClient } from '../../api/createApiClient.js';
import type { InvalidRecord } from '../../api/envelope.js';
import type { ApiOrderSummary } from '../../api/schemas.js';
import { ORDER_STATUSES, type OrderStatus } from '../../domain/limits.js';
import type { ListedOrder, ListedPage } from './orderPoll.js';

/**
 * An order as a list page showed it. `order` is the record when it passed its schema; otherwise
 * null, with `problem` naming the field, and what could still be read of it (id, status, source).
 */
export interface ListedRecord extends ListedOrder {
  status: OrderStatus | null;
  sourceOrderId: string | null;
  order: ApiOrderSummary | null;
  problem: string | null;
}

/** A list record without a usable id: it cannot be followed, only reported. */
export interface UnreadableRecord {
  page: number;
  index: number;
  reason: string;
}

/**
 * Reads one page of `GET /orders` (newest or oldest first, as the server lists) as ListedRecords,
 * for scanForUnseenOrders. Records that fail their schema but carry an id are listed with their
 * problem (the caller fetches them in full or reports them); those without one go to `onUnreadable`.
 */
export function orderListPages(
  client: ApiClient,
  perPage: number,
  onUnreadable: (record: UnreadableRecord) => void = () => {},
): (page: number) => Promise<ListedPage<ListedRecord>> {
  return async (page) => {
    const result = await client.orders.list({ per_page: perPage, page });
    const items: ListedRecord[] = result.data.map((order) => ({
      id: order.id,
      createdAt: order.created_at,
      status: order.status,
      sourceOrderId: order.source_order_id ?? null,
      order,
      problem: null,
    }));
    for (const invalid of result.invalid ?? []) {
      const listed = fromInvalid(invalid);
      if (listed) items.push(listed);
      else onUnreadable({ page, index: invalid.index, reason: invalid.error.message });
    }
    return { items, lastPage: result.meta.last_page };
  };
}

function fromInvalid({ record, error }: InvalidRecord): ListedRecord | null {
  if (!record || typeof record !== 'object') return null;
  const raw = record as Record<string, unknown>;
  const id = raw.id;
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 1) return null;
  const status = ORDER_STATUSES.find((s) => s === raw.status) ?? null;
  return {
    id,
    createdAt: typeof raw.created_at === 'string' ? raw.created_at : '',
    status,
    sourceOrderId: typeof raw.source_order_id === 'string' ? raw.source_order_id : null,
    order: null,
    problem: error.message,
  };
}
