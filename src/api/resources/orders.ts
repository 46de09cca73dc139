import { ORDER_STATUSES } from '../../domain/limits.js';
import { callList, callSingle, get } from '../call.js';
import { parseSingle, type Page } from '../envelope.js';
import type { AwbInput, OrderCreateInput, OrderListQuery, OrderUpdateInput } from '../inputs.js';
import { ITERATE_PER_PAGE, iteratePages } from '../pagination.js';
import {
  apiAwbSchema,
  apiInvoiceSchema,
  apiOrderSchema,
  type ApiAwb,
  type ApiInvoice,
  type ApiOrder,
} from '../schemas.js';
import type { Transport } from '../transport.js';
import { assertId, checkAwb, checkListQuery, checkOrderCreate, checkOrderUpdate } from '../validation.js';

export interface OrdersApi {
  list(query?: OrderListQuery): Promise<Page<ApiOrder>>;
  /** Every order matching the query, 100 per request, each id once (newest-first lists included). */
  iterate(query?: Omit<OrderListQuery, 'page' | 'per_page'>): AsyncGenerator<ApiOrder, void, undefined>;
  get(id: number): Promise<ApiOrder>;
  /** Not repeated on failure: a lost answer is an OutcomeUnknownError (reconcile by source_order_id). */
  create(input: OrderCreateInput): Promise<ApiOrder>;
  update(id: number, input: OrderUpdateInput): Promise<ApiOrder>;
  /** Idempotent on the server: an order's existing AWB is returned. */
  createAwb(id: number, input?: AwbInput): Promise<ApiAwb>;
  /** Idempotent on the server: an order's existing invoice is returned. */
  createInvoice(id: number): Promise<ApiInvoice>;
}

/** Servers answer an AWB or invoice POST with the document itself or with the whole order. */
function documentOf(data: unknown, key: 'awb' | 'invoice'): unknown {
  if (data && typeof data === 'object' && key in data) {
    const nested = (data as Record<string, unknown>)[key];
    if (nested && typeof nested === 'object') return nested;
  }
  return data;
}

export function ordersApi(transport: Transport): OrdersApi {
  const list = async (query: OrderListQuery = {}) => {
    checkListQuery('orders.list', query, ORDER_STATUSES);
    return callList(transport, apiOrderSchema, get('/orders', '/orders', query));
  };
  return {
    list,
    iterate: (query = {}) =>
      iteratePages(
        (page) => list({ ...query, page, per_page: ITERATE_PER_PAGE }),
        (order) => order.id,
      ),
    get: async (id) => {
      assertId('orders.get', id);
      return callSingle(transport, apiOrderSchema, get(`/orders/${id}`, '/orders/{id}'));
    },
    create: async (input) => {
      checkOrderCreate(input);
      return callSingle(transport, apiOrderSchema, {
        method: 'POST',
        path: '/orders',
        route: '/orders',
        body: input,
        idempotent: false,
      });
    },
    update: async (id, input) => {
      assertId('orders.update', id);
      checkOrderUpdate(input);
      return callSingle(transport, apiOrderSchema, {
        method: 'PATCH',
        path: `/orders/${id}`,
        route: '/orders/{id}',
        body: input,
        idempotent: true,
      });
    },
    createAwb: async (id, input = {}) => {
      assertId('orders.createAwb', id);
      checkAwb(input);
      const response = await transport.send({
        method: 'POST',
        path: `/orders/${id}/awb`,
        route: '/orders/{id}/awb',
        body: input,
        idempotent: true,
      });
      const data = (response.body as { data?: unknown } | null)?.data;
      return parseSingle(apiAwbSchema, { data: documentOf(data, 'awb') }, response.context);
    },
    createInvoice: async (id) => {
      assertId('orders.createInvoice', id);
      const response = await transport.send({
        method: 'POST',
        path: `/orders/${id}/invoice`,
        route: '/orders/{id}/invoice',
        idempotent: true,
      });
      const data = (response.body as { data?: unknown } | null)?.data;
      return parseSingle(apiInvoiceSchema, { data: documentOf(data, 'invoice') }, response.context);
    },
  };
}
