import type { OrderStatus } from '../../src/domain/limits.js';
import { orderRecord } from './records.js';
import { pageOf, startStubServer, type StubReply, type StubRequest, type StubServer } from './stubServer.js';

/**
 * A second API v2 implementation for orders, making other plausible choices than the sandbox
 * where the spec is silent: lines named `lines` or `items`, lists of summaries without lines,
 * `POST /orders` answered without lines, a move table of single steps only, AWB and invoice
 * answers in a shape of the test's choosing. In memory, on a real
 * HTTP server (startStubServer), newest first.
 */
export interface StubOrderPlatformOptions {
  /** The name of an order's lines on the wire. */
  lineKey?: 'items' | 'lines';
  /** `summary`: list records carry no lines and no totals (only `GET /orders/{id}` does). */
  list?: 'full' | 'summary';
  /** `summary`: `POST /orders` and `PATCH /orders/{id}` answer without lines and totals. */
  writeAnswer?: 'full' | 'summary';
  /** Allowed status moves (the same status is a no-op). Default: one step along the lifecycle. */
  moves?: Partial<Record<OrderStatus, readonly OrderStatus[]>>;
  /** The body answering `POST /orders/{id}/awb` (default `{ data: { number, courier } }`). */
  awbAnswer?: (orderId: number) => unknown;
  /** The body answering `POST /orders/{id}/invoice` (default `{ data: { series, number, total } }`). */
  invoiceAnswer?: (orderId: number) => unknown;
}

export interface HistoryEntry {
  from: OrderStatus;
  to: OrderStatus;
  note: string | null;
}

export interface StubOrder {
  record: Record<string, unknown>;
  history: HistoryEntry[];
  /** Overrides applied to the record as a list shows it (an odd list record). */
  listOverride?: Record<string, unknown>;
  /** Overrides applied to the record as `GET /orders/{id}` shows it. */
  getOverride?: Record<string, unknown>;
}

export interface StubOrderPlatform {
  url: string;
  server: StubServer;
  orders: Map<number, StubOrder>;
  /** Adds an order (`new`, one line of `sku`), returns its id. */
  add(extra?: Record<string, unknown>, sku?: string): number;
  /**
   * Answers the requests matching `when` with `reply` (null: stop). With `applyFirst` the request
   * is applied first and then its answer replaced (a lost answer); `reply` may be a function run then.
   */
  intercept(
    when: (request: StubRequest) => boolean,
    reply: StubReply | (() => StubReply) | null,
    options?: { applyFirst?: boolean },
  ): void;
  /** Requests made, as `METHOD /path`, optionally with the PATCH status. */
  calls(): string[];
  close(): Promise<void>;
}

export const SINGLE_STEPS: Record<OrderStatus, readonly OrderStatus[]> = {
  new: ['confirmed', 'cancelled'],
  confirmed: ['processing', 'cancelled'],
  processing: ['shipped', 'cancelled'],
  shipped: ['returned'],
  cancelled: [],
  returned: [],
};

const SUMMARY_DROPS = [
  'items',
  'lines',
  'subtotal',
  'shipping_total',
  'discount_total',
  'tax_total',
  'total',
];

export async function startStubOrderPlatform(
  options: StubOrderPlatformOptions = {},
): Promise<StubOrderPlatform> {
  const lineKey = options.lineKey ?? 'items';
  const moves = { ...SINGLE_STEPS, ...options.moves };
  const orders = new Map<number, StubOrder>();
  let nextId = 1;
  let fault: {
    when: (request: StubRequest) => boolean;
    reply: StubReply | (() => StubReply);
    applyFirst: boolean;
  } | null = null;

  const wire = (order: StubOrder, shape: 'full' | 'summary', override?: Record<string, unknown>) => {
    const { items, ...rest } = order.record;
    const out: Record<string, unknown> = { ...rest, [lineKey]: items, ...override };
    if (shape === 'summary') for (const key of SUMMARY_DROPS) delete out[key];
    return out;
  };

  const add = (extra: Record<string, unknown> = {}, sku = 'SKU-1'): number => {
    const id = nextId++;
    const record = orderRecord(id, {
      created_at: new Date(Date.UTC(2026, 0, 1, 0, 0, id)).toISOString(),
      payment_status: 'unpaid',
      ...extra,
    });
    record.items = [
      {
        product_id: 1,
        variant_id: null,
        sku,
        name: 'Product',
        quantity: 2,
        unit_price: 11,
        tax_rate: 19,
        total: 22,
      },
    ];
    orders.set(id, { record, history: [] });
    return id;
  };

  const notFound: StubReply = { status: 404, json: { error: 'not_found', message: 'Order not found' } };
  const refuse = (field: string, message: string): StubReply => ({
    status: 422,
    json: {
      error: 'validation_failed',
      message: 'The given data was invalid.',
      errors: { [field]: [message] },
    },
  });

  const handler = (request: StubRequest): StubReply => {
    if (fault && fault.when(request)) {
      if (fault.applyFirst) handle(request);
      return typeof fault.reply === 'function' ? fault.reply() : fault.reply;
    }
    return handle(request);
  };

  const handle = (request: StubRequest): StubReply => {
    const document = /^\/orders\/(\d+)\/(awb|invoice)$/.exec(request.path);
    if (document && request.method === 'POST') {
      const orderId = Number(document[1]);
      if (!orders.has(orderId)) return notFound;
      if (document[2] === 'awb')
        return {
          status: 201,
          json: options.awbAnswer?.(orderId) ?? { data: { number: `AWB${orderId}`, courier: 'fan' } },
        };
      return {
        status: 201,
        json: options.invoiceAnswer?.(orderId) ?? { data: { series: 'INV', number: orderId, total: 22 } },
      };
    }
    const match = /^\/orders(?:\/(\d+))?$/.exec(request.path);
    if (request.path === '/customers') return { json: pageOf([], 1, 100) };
    if (!match) return notFound;
    const id = match[1] ? Number(match[1]) : null;
    if (id === null && request.method === 'GET') {
      const search = request.query.get('search');
      const perPage = Number(request.query.get('per_page') ?? 15);
      const page = Number(request.query.get('page') ?? 1);
      const listed = [...orders.values()]
        .filter((o) => !search || String(o.record.source_order_id ?? '').includes(search))
        .sort((a, b) => Number(b.record.id) - Number(a.record.id))
        .map((o) => wire(o, options.list ?? 'full', o.listOverride));
      return { json: pageOf(listed, page, perPage) };
    }
    if (id === null && request.method === 'POST') {
      const body = request.body as Record<string, unknown>;
      const lines = body.items as { sku: string; quantity: number }[];
      const newId = add(
        { source_order_id: body.source_order_id ?? null, status: body.status ?? 'new' },
        lines[0]!.sku,
      );
      const order = orders.get(newId)!;
      return { status: 201, json: { data: wire(order, options.writeAnswer ?? 'full') } };
    }
    const order = id === null ? undefined : orders.get(id);
    if (!order) return notFound;
    if (request.method === 'GET') return { json: { data: wire(order, 'full', order.getOverride) } };
    if (request.method === 'PATCH') {
      const body = request.body as Record<string, unknown>;
      const from = order.record.status as OrderStatus;
      const to = body.status as OrderStatus | undefined;
      if (to !== undefined && to !== from) {
        if (!moves[from].includes(to)) return refuse('status', `cannot move from ${from} to ${to}`);
        order.history.push({ from, to, note: (body.note as string | undefined) ?? null });
        order.record.status = to;
      }
      for (const key of ['payment_status', 'labels', 'notes']) {
        if (body[key] !== undefined) order.record[key] = body[key];
      }
      return { json: { data: wire(order, options.writeAnswer ?? 'full') } };
    }
    return notFound;
  };

  const server = await startStubServer(handler);
  return {
    url: server.url,
    server,
    orders,
    add,
    intercept(when, reply, interceptOptions = {}) {
      fault = reply === null ? null : { when, reply, applyFirst: interceptOptions.applyFirst ?? false };
    },
    calls: () =>
      server.requests.map((r) => {
        const status = (r.body as { status?: string } | undefined)?.status;
        return `${r.method} ${r.path}${r.method === 'PATCH' && status ? ` ${status}` : ''}`;
      }),
    close: () => server.close(),
  };
}
