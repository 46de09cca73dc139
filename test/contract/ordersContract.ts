import { describe, expect, it } from 'vitest';
import type { OrderEvent, OutgoingOrder } from '../../src/domain/orders.js';
import { requireErpOrderPart } from '../../src/erp/erpOrderPart.js';
import { CONTRACT_SEED, contractOrder } from './contractData.js';
import { collect, withSource, type ContractSetUp } from './contractSource.js';

/**
 * The order side of the port, the same for every adapter: import idempotent on the platform
 * order id (also from another instance), events read from a checkpoint with stable identities,
 * ERP-origin orders read with their fields and told their platform order once.
 */
export function describeOrdersContract(name: string, setUp: ContractSetUp): void {
  describeOrderImportContract(name, setUp);
  describe(`ErpAdapter contract, orders: ${name}`, () => {
    it('reads events in order, rejects a bad one, and resumes after any checkpoint with the same identities', () =>
      withSource(setUp, CONTRACT_SEED, async ({ open }) => {
        const adapter = requireErpOrderPart(await open(), 'events');
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
        const bad = all[2]!.row;
        expect(bad.ok === false && bad.reason).toMatch(/unknown event "teleported"/);
        const again = await collect(adapter.orderEvents(null));
        expect(again.map((e) => e.row.ok && e.row.record.eventId)).toEqual(
          all.map((e) => e.row.ok && e.row.record.eventId),
        );
        // A checkpoint is all another instance (the next run) needs to resume.
        const next = requireErpOrderPart(await open(), 'events');
        for (let k = 0; k < all.length; k++) {
          const rest = await collect(next.orderEvents(all[k]!.checkpoint));
          expect(rest.map((e) => e.checkpoint)).toEqual(all.slice(k + 1).map((e) => e.checkpoint));
        }
      }));

    it('reads ERP-origin orders with their customer and lines, never skipping one not yet told', () =>
      withSource(setUp, CONTRACT_SEED, async ({ open }) => {
        const adapter = requireErpOrderPart(await open(), 'outgoing');
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
        const afterFirst = await collect(adapter.outgoingOrders(rows[0]!.checkpoint));
        expect(afterFirst.flatMap((r) => (r.row.ok ? [r.row.record.sourceOrderId] : []))).toContain('ERP-2');
      }));

    it('tells the ERP which platform order its order became, from another instance, once', () =>
      withSource(setUp, CONTRACT_SEED, async ({ open, toldPlatformOrder }) => {
        const rows = await collect(requireErpOrderPart(await open(), 'outgoing').outgoingOrders(null));
        const first = rows[0]!.row;
        if (!first.ok) throw new Error('ERP-1 should read');
        expect(await toldPlatformOrder('ERP-1')).toBeNull();
        // Everything needed travels with the order: a fresh instance (the next run) records it.
        const other = requireErpOrderPart(await open(), 'outgoing');
        await other.recordOutgoingOrder(first.record, 501);
        expect(await toldPlatformOrder('ERP-1')).toBe(501);
        expect(await toldPlatformOrder('ERP-2')).toBeNull();
        await other.recordOutgoingOrder(first.record, 501);
        expect(await toldPlatformOrder('ERP-1')).toBe(501);
        // The order not told yet is still read.
        const again = await collect(requireErpOrderPart(await open(), 'outgoing').outgoingOrders(null));
        expect(again.flatMap((r) => (r.row.ok ? [r.row.record.sourceOrderId] : []))).toContain('ERP-2');
      }));
  });
}

/**
 * The import side alone: what every adapter passes whatever else its ERP can hold (an RPC ERP
 * with typed fields cannot hold the contract's malformed rows or free-form events). The source
 * must know the SKU of `contractOrder` once seeded with CONTRACT_SEED.
 */
export function describeOrderImportContract(name: string, setUp: ContractSetUp): void {
  describe(`ErpAdapter contract, order import: ${name}`, () => {
    it('implements exactly the parts of the order exchange its capabilities name', () =>
      withSource(setUp, CONTRACT_SEED, async ({ open }) => {
        const adapter = await open();
        const methods = {
          import: [adapter.importOrder, adapter.updateOrder],
          events: [adapter.orderEvents, adapter.recordFeedback],
          outgoing: [adapter.outgoingOrders, adapter.recordOutgoingOrder],
        };
        expect(adapter.capabilities.orders.import).toBe(true);
        for (const [part, implemented] of Object.entries(methods)) {
          const declared = adapter.capabilities.orders[part as keyof typeof methods];
          expect({ part, implemented: implemented.map((m) => typeof m === 'function') }).toEqual({
            part,
            implemented: [declared, declared],
          });
        }
      }));

    it('imports an order once: a second import, also by another instance, finds the first', () =>
      withSource(setUp, CONTRACT_SEED, async ({ open }) => {
        const adapter = requireErpOrderPart(await open(), 'import');
        const first = await adapter.importOrder(contractOrder(7));
        const second = await adapter.importOrder(contractOrder(7));
        expect(first.alreadyImported).toBe(false);
        expect(second).toEqual({ erpRef: first.erpRef, alreadyImported: true });
        const elsewhere = await requireErpOrderPart(await open(), 'import').importOrder(contractOrder(7));
        expect(elsewhere).toEqual({ erpRef: first.erpRef, alreadyImported: true });
        expect((await adapter.importOrder(contractOrder(8))).erpRef).not.toBe(first.erpRef);
      }));

    it('imports as many orders at once as it says it takes (importsAtOnce), each once', () =>
      withSource(setUp, CONTRACT_SEED, async ({ open }) => {
        const adapter = requireErpOrderPart(await open(), 'import');
        const atOnce = adapter.capabilities.importsAtOnce;
        expect(Number.isInteger(atOnce) && atOnce >= 1).toBe(true);
        const ids = Array.from({ length: atOnce }, (_, k) => 300 + k);
        const results = await Promise.all(ids.map((id) => adapter.importOrder(contractOrder(id))));
        expect(results.map((r) => r.alreadyImported)).toEqual(ids.map(() => false));
        expect(new Set(results.map((r) => r.erpRef)).size).toBe(atOnce);
        const again = await Promise.all(ids.map((id) => adapter.importOrder(contractOrder(id))));
        expect(again).toEqual(results.map((r) => ({ erpRef: r.erpRef, alreadyImported: true })));
      }));

    it('takes the same change twice without failing (idempotent per change)', () =>
      withSource(setUp, CONTRACT_SEED, async ({ open }) => {
        const adapter = requireErpOrderPart(await open(), 'import');
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

    it('locates an imported order read only: its reference, where and when, from another instance; null when not imported', () =>
      withSource(setUp, CONTRACT_SEED, async ({ open, expectedLocation }) => {
        const adapter = requireErpOrderPart(await open(), 'import');
        if (!adapter.locateOrder) throw new Error(`${name} has no locateOrder`);
        expect(await adapter.locateOrder(11)).toBeNull();
        // Looking wrote nothing: the import after it is the first.
        const before = Date.now();
        const { erpRef, alreadyImported } = await adapter.importOrder(contractOrder(11));
        expect(alreadyImported).toBe(false);
        await adapter.updateOrder(
          { ...contractOrder(11), status: 'cancelled' },
          { orderId: 11, erpRef, seq: 1, status: 'cancelled', previousStatus: 'new' },
        );
        const located = await requireErpOrderPart(await open(), 'import').locateOrder!(11);
        expect(located).toMatchObject({ erpRef, ...expectedLocation(11, erpRef) });
        expect(located!.place).not.toBe('');
        // The ERP's own clock (a file's time, a row's timestamp, the sale's creation): seconds apart at most.
        const at = Date.parse(located!.at ?? '');
        expect(at).toBeGreaterThanOrEqual(before - 5_000);
        expect(at).toBeLessThanOrEqual(Date.now() + 5_000);
        expect(await adapter.locateOrder(12)).toBeNull();
      }));
  });
}
