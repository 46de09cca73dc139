import type { z } from 'zod';
import { ORDER_STATUSES } from '../../domain/limits.js';
import { callSingle, get, write } from '../call.js';
import { parseSingle, type Page } from '../envelope.js';
import type { AwbInput, OrderCreateInput, OrderListQuery, OrderUpdateInput } from '../inputs.js';
import {
  apiAwbSchema,
  apiInvoiceSchema,
  apiOrderSchema,
  apiOrderSummarySchema,
  type ApiAwb,
  type ApiInvoice,
  type ApiOrder,
  type ApiOrderSummary,
} from '../schemas.js';
import type { RequestSpec, Transport } from '../transport.js';
import { assertId, checkAwb, checkOrderCreate, checkOrderUpdate } from '../validation.js';
import { pagedApi } from './lists.js';

/**
 * Orders as servers plausibly answer them: lines under `items` or `lines`; list records, create
 * and update answers possibly without lines (summaries; `fullOrder` tells whether one carries
 * everything, `get` fetches it in full). A list record that fails its schema does not fail the
 * page: it is set aside in the page's `invalid` for the caller to report.
 */
export interface OrdersApi {
  list(query?: OrderListQuery): Promise<Page<ApiOrderSummary>>;
  /** Every valid order matching the query, 100 per request, each id once (newest-first lists included). */
  iterate(
    query?: Omit<OrderListQuery, 'page' | 'per_page'>,
  ): AsyncGenerator<ApiOrderSummary, void, undefined>;
  /** The order in full, with its lines. */
  get(id: number): Promise<ApiOrder>;
  /** Not repeated on failure: a lost answer is an OutcomeUnknownError (reconcile by source_order_id). */
  create(input: OrderCreateInput): Promise<ApiOrderSummary>;
  update(id: number, input: OrderUpdateInput): Promise<ApiOrderSummary>;
  /** Idempotent on the server: an order's existing AWB is returned. */
  createAwb(id: number, input?: AwbInput): Promise<ApiAwb>;
  /** Idempotent on the server: an order's existing invoice is returned. */
  createInvoice(id: number): Promise<ApiInvoice>;
}

/**
 * Servers answer an AWB or invoice POST with the document itself or with the whole order, inside
 * the `data` envelope or bare.
 */
function documentOf(body: unknown, key: 'awb' | 'invoice'): unknown {
  const data =
    body && typeof body === 'object' && !Array.isArray(body) && 'data' in body
      ? (body as { data: unknown }).data
      : body;
  if (!data || typeof data !== 'object' || !(key in data)) return data;
  // An order answered in place of the document: its `awb` / `invoice` (an object, or the bare
  // number), never the order's own `number`.
  const nested = (data as Record<string, unknown>)[key];
  return typeof nested === 'string' || typeof nested === 'number' ? { number: nested } : nested;
}

export function ordersApi(transport: Transport): OrdersApi {
  const { list, iterate } = pagedApi<typeof apiOrderSummarySchema, OrderListQuery>(
    transport,
    'orders',
    '/orders',
    apiOrderSummarySchema,
    (order) => order.id,
    { statuses: ORDER_STATUSES, skipInvalid: true },
  );
  /** AWB and invoice POSTs: idempotent per the spec, so repeated like a PUT. */
  const document = async <S extends z.ZodType>(
    schema: S,
    key: 'awb' | 'invoice',
    spec: RequestSpec,
  ): Promise<z.output<S>> => {
    const response = await transport.send(spec);
    return parseSingle(schema, { data: documentOf(response.body, key) }, response.context);
  };
  return {
    list,
    iterate,
    get: async (id) => {
      assertId('orders.get', id);
      return callSingle(transport, apiOrderSchema, get(`/orders/${id}`, '/orders/{id}'));
    },
    create: async (input) => {
      checkOrderCreate(input);
      return callSingle(transport, apiOrderSummarySchema, write('POST', '/orders', '/orders', input, false));
    },
    update: async (id, input) => {
      assertId('orders.update', id);
      checkOrderUpdate(input);
      return callSingle(
        transport,
        apiOrderSummarySchema,
        write('PATCH', `/orders/${id}`, '/orders/{id}', input),
      );
    },
    createAwb: async (id, input = {}) => {
      assertId('orders.createAwb', id);
      checkAwb(input);
      return document(apiAwbSchema, 'awb', write('POST', `/orders/${id}/awb`, '/orders/{id}/awb', input));
    },
    createInvoice: async (id) => {
      assertId('orders.createInvoice', id);
      return document(
        apiInvoiceSchema,
        'invoice',
        write('POST', `/orders/${id}/invoice`, '/orders/{id}/invoice', undefined),
      );
    },
  };
}
