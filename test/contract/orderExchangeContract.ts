import { describe, expect, it } from 'vitest';
import type { OrderEvent, OutgoingOrder, PlatformOrder } from '../../src/domain/orders.js';
import type { ErpAdapter } from '../../src/erp/ErpAdapter.js';

/**
 * The order side of the ERP adapter port, the same for every adapter (file now; SQL and RPC
 * later): import idempotent on the platform order id, events read from a checkpoint with stable
 * identities, ERP-origin orders read with their fields.
 */
export interface PreparedOrderExchange {
  adapter: ErpAdapter;
  cleanup?: () => Promise<void> | void;
}

/** Contract events in ERP terms: the factory stores them the way its ERP holds them. */
export const CONTRACT_EVENTS: {
  orderId?: number;
  erpRef?: string;
  event: string;
  courier?: string;
  weight?: string;
  parcels?: string;
  note?: string;
  labels?: string[];
}[] = [
  { orderId: 101, event: 'confirmed', note: 'checked', labels: ['erp', 'b2b'] },
  { erpRef: 'R-102', event: 'awb', courier: 'sameday', weight: '1.5', parcels: '2' },
  { orderId: 103, event: 'teleported' },
  { orderId: 104, event: 'invoiced' },
];

export const CONTRACT_OUTGOING: {
  sourceOrderId: string;
  customerEmail: string;
  items: { sku: string; quantity: number }[];
}[] = [
  { sourceOrderId: 'ERP-1', customerEmail: 'one@example.ro', items: [{ sku: 'A-1', quantity: 2 }] },
  {
    sourceOrderId: 'ERP-2',
    customerEmail: 'two@example.ro',
    items: [
      { sku: 'B-1', quantity: 1 },
      { sku: 'A-1', quantity: 3 },
    ],
  },
];

export type OrderExchangeFactory = (data: {
  events: typeof CONTRACT_EVENTS;
  outgoing: typeof CONTRACT_OUTGOING;
}) => Promise<PreparedOrderExchange>;

export function contractOrder(id: number): PlatformOrder {
  return {
    id,
    number: `CMD-${id}`,
    status: 'new',
    paymentStatus: 'unpaid',
    currency: 'RON',
    sourceOrderId: null,
    customer: {
      id: 1,
      name: 'Client',
      email: 'client@example.ro',
      phone: null,
      companyName: null,
      cui: null,
      regCom: null,
    },
    items: [
      {
        productId: 1,
        variantId: null,
        sku: 'A-1',
        name: 'A',
        quantity: 2,
        unitPrice: 10,
        taxRate: 19,
        total: 20,
      },
    ],
    subtotal: 20,
    shippingTotal: 0,
    discountTotal: 0,
    taxTotal: 3.19,
    total: 20,
    awbNumber: null,
    invoiceNumber: null,
    createdAt: '2026-11-21T06:00:00Z',
    updatedAt: '2026-11-21T06:00:00Z',
    raw: { id, number: `CMD-${id}` },
  };
}

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

export function describeOrderExchangeContract(name: string, factory: OrderExchangeFactory): void {
  describe(`order exchange contract: ${name}`, () => {
    const withAdapter = async (fn: (adapter: ErpAdapter) => Promise<void>) => {
      const prepared = await factory({ events: CONTRACT_EVENTS, outgoing: CONTRACT_OUTGOING });
      try {
        await fn(prepared.adapter);
      } finally {
        await prepared.cleanup?.();
      }
    };

    it('imports an order once: a second import finds the first and returns the same reference', () =>
      withAdapter(async (adapter) => {
        const first = await adapter.importOrder(contractOrder(7));
        const second = await adapter.importOrder(contractOrder(7));
        expect(first.alreadyImported).toBe(false);
        expect(second).toEqual({ erpRef: first.erpRef, alreadyImported: true });
        expect((await adapter.importOrder(contractOrder(8))).erpRef).not.toBe(first.erpRef);
      }));

    it('takes the same change twice without failing (idempotent per change)', () =>
      withAdapter(async (adapter) => {
        const { erpRef } = await adapter.importOrder(contractOrder(9));
        const change = {
          orderId: 9,
          erpRef,
          seq: 1,
          status: 'cancelled' as const,
          previousStatus: 'new' as const,
        };
        await adapter.updateOrder({ ...contractOrder(9), status: 'cancelled' }, change);
        await adapter.updateOrder({ ...contractOrder(9), status: 'cancelled' }, change);
      }));

    it('reads events in order, rejects a bad one, and resumes after any checkpoint with the same identities', () =>
      withAdapter(async (adapter) => {
        const all = await collect(adapter.orderEvents(null));
        expect(all.map((e) => e.row.ok)).toEqual([true, true, false, true]);
        const records = all.flatMap((e) => (e.row.ok ? [e.row.record] : []));
        expect(records[0]).toMatchObject<Partial<OrderEvent>>({
          orderId: 101,
          kind: 'confirmed',
          note: 'checked',
          labels: ['erp', 'b2b'],
        });
        expect(records[1]).toMatchObject<Partial<OrderEvent>>({
          erpRef: 'R-102',
          kind: 'awb',
          courier: 'sameday',
          weight: 1.5,
          parcels: 2,
        });
        expect(records[2]).toMatchObject<Partial<OrderEvent>>({ orderId: 104, kind: 'invoiced' });
        const again = await collect(adapter.orderEvents(null));
        expect(again.map((e) => e.row.ok && e.row.record.eventId)).toEqual(
          all.map((e) => e.row.ok && e.row.record.eventId),
        );
        for (let k = 0; k < all.length; k++) {
          const rest = await collect(adapter.orderEvents(all[k]!.checkpoint));
          expect(rest.map((e) => e.checkpoint)).toEqual(all.slice(k + 1).map((e) => e.checkpoint));
        }
      }));

    it('reads ERP-origin orders with their customer and lines', () =>
      withAdapter(async (adapter) => {
        const rows = await collect(adapter.outgoingOrders(null));
        const orders = rows.flatMap((r) => (r.row.ok ? [r.row.record] : []));
        expect(orders.map((o) => o.sourceOrderId)).toEqual(['ERP-1', 'ERP-2']);
        expect(orders[1]).toMatchObject<Partial<OutgoingOrder>>({
          customer: { name: expect.any(String) as string, email: 'two@example.ro' },
          items: [
            { sku: 'B-1', quantity: 1 },
            { sku: 'A-1', quantity: 3 },
          ],
        });
        await adapter.recordOutgoingOrder(orders[0]!, 501);
      }));
  });
}
