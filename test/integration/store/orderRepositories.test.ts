import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../../src/store/index.js';
import { nextAttemptDelayMs } from '../../../src/store/ParkedOrderRepository.js';
import { STORE_KINDS, TestStores } from '../../support/testStores.js';
describe.each(STORE_KINDS)('%s store', (kind) => {
  const stores = new TestStores(kind);

  let store: Store;
  beforeEach(() => {
    store = stores.open();
  });
  afterEach(() => stores.cleanup());

  const link = (id: number, status: 'new' | 'cancelled' = 'new') => ({
    platformOrderId: id,
    erpRef: `${id}.json`,
    number: `N${id}`,
    status,
    paymentStatus: 'unpaid' as const,
    platformCreatedAt: null,
    lines: [{ sku: 'A', quantity: 2 }],
  });

  describe('order store', () => {
    it('holds units of queued, parked and recently imported unacknowledged orders, not of cancelled or acknowledged ones', () => {
      const { links, seen, parked } = store.orders;
      seen.enqueue([
        { id: 1, createdAt: null },
        { id: 2, createdAt: null },
      ]);
      links.replaceLines(1, [{ sku: 'A', quantity: 1 }]); // queued
      links.replaceLines(2, [{ sku: 'B', quantity: 4 }]);
      parked.park({ platformOrderId: 2, number: null, code: 'erp_rejected', reason: 'unknown SKU B' });
      seen.setOutcome(2, 'parked', 'new');
      links.link(link(3), '2026-01-01T10:00:00.000Z'); // imported at 10:00
      seen.setOutcome(3, 'imported', 'new');
      links.link(link(4, 'cancelled'), '2026-01-01T10:00:00.000Z');
      seen.setOutcome(4, 'imported', 'cancelled');
      links.link(link(5), '2026-01-01T10:00:00.000Z');
      seen.setOutcome(5, 'imported', 'new');
      links.acknowledge(5);

      const window = (since: string) => ({ since, untilAcknowledged: true });
      expect(Object.fromEntries(links.heldUnits(window('2026-01-01T09:30:00.000Z')))).toEqual({ A: 3, B: 4 });
      // Outside the window the imported one counts as reflected in the ERP.
      expect(Object.fromEntries(links.heldUnits(window('2026-01-01T10:30:00.000Z')))).toEqual({ A: 1, B: 4 });
      // An ERP that subtracts an order once imported: only imports from the read's start on are
      // held, acknowledged or not (5 was acknowledged after its import, still after the read began).
      const fromRead = (since: string) => ({ since, untilAcknowledged: false });
      expect(Object.fromEntries(links.heldUnits(fromRead('2026-01-01T10:00:00.000Z')))).toEqual({
        A: 1 + 2 + 2,
        B: 4,
      });
      expect(Object.fromEntries(links.heldUnits(fromRead('2026-01-01T10:00:00.001Z')))).toEqual({
        A: 1,
        B: 4,
      });
      expect(
        links.holders(fromRead('2026-01-01T10:00:00.000Z'), ['A']).map((h) => h.platformOrderId),
      ).toEqual([1, 3, 5]);
    });

    it("reads many orders' lines in one call, and a link without lines keeps the stored ones", () => {
      const { links } = store.orders;
      links.replaceLines(1, [
        { sku: 'A', quantity: 1 },
        { sku: 'B', quantity: 3 },
      ]);
      links.replaceLines(2, [{ sku: 'C', quantity: 2 }]);
      expect(Object.fromEntries(links.linesOf([1, 2, 9]))).toEqual({
        1: [
          { sku: 'A', quantity: 1 },
          { sku: 'B', quantity: 3 },
        ],
        2: [{ sku: 'C', quantity: 2 }],
      });
      links.link({ ...link(1), lines: null });
      links.link(link(2));
      expect(Object.fromEntries(links.linesOf([1, 2]))).toEqual({
        1: [
          { sku: 'A', quantity: 1 },
          { sku: 'B', quantity: 3 },
        ],
        2: [{ sku: 'A', quantity: 2 }],
      });
      expect(links.linesOf([]).size).toBe(0);
    });

    it('keeps a parked order through any number of attempts, backing off to an hour at most', () => {
      const { parked } = store.orders;
      for (let i = 0; i < 50; i++)
        parked.park({ platformOrderId: 9, number: 'N9', code: 'erp_rejected', reason: `try ${i}` });
      expect(parked.get(9)).toMatchObject({ attempts: 50, reason: 'try 49' });
      expect(nextAttemptDelayMs(50)).toBe(3_600_000);
      expect(nextAttemptDelayMs(1)).toBe(60_000);
      expect(parked.due(new Date())).toEqual([]);
      expect(parked.makeDue([9])).toBe(1);
      expect(parked.due(new Date()).map((p) => p.platformOrderId)).toEqual([9]);
    });

    it('tells which of many orders are parked in one call', () => {
      const { parked } = store.orders;
      for (const id of [3, 7])
        parked.park({ platformOrderId: id, number: null, code: 'erp_rejected', reason: 'x' });
      parked.unpark(7);
      expect([...parked.parkedAmong([1, 3, 7, 9])]).toEqual([3]);
      expect(parked.parkedAmong([]).size).toBe(0);
    });

    it('knows found orders and hands out the queued ones in id order', () => {
      const { seen } = store.orders;
      seen.enqueue([
        { id: 30, createdAt: null },
        { id: 10, createdAt: null },
        { id: 20, createdAt: null },
      ]);
      seen.setOutcome(20, 'skipped', 'shipped');
      expect([...seen.known([5, 10, 20, 30])].sort()).toEqual([10, 20, 30]);
      expect(seen.queued()).toEqual([10, 30]);
      seen.enqueue([{ id: 20, createdAt: null }]); // found again: the decision stands
      expect(seen.queued()).toEqual([10, 30]);
    });

    it('keeps an ERP order intent through unknown outcomes and only reopens a rejected one', () => {
      const { outgoing } = store.orders;
      outgoing.recordIntent('E1', 'h1');
      outgoing.countAttempt('E1');
      outgoing.markUnknown('E1', 'api_outcome_unknown: dropped');
      outgoing.recordIntent('E1', 'h1');
      expect(outgoing.get('E1')).toMatchObject({ state: 'unknown', attempts: 1 });
      outgoing.markCreated('E1', 77);
      expect(outgoing.byPlatformOrderId(77)?.sourceOrderId).toBe('E1');
      expect([...outgoing.knownSources(['E1', 'E2'])]).toEqual(['E1']);
      expect([...outgoing.createdAmong([76, 77, 78])]).toEqual([77]);
      expect(outgoing.createdAmong([]).size).toBe(0);
      outgoing.recordIntent('E2', 'h2');
      outgoing.markRejected('E2', 'unknown sku');
      outgoing.recordIntent('E2', 'h3');
      expect(outgoing.get('E2')).toMatchObject({ state: 'pending', contentHash: 'h3' });
    });

    it('delivers a pending change as it was and records the ERP state after commit', () => {
      const { links } = store.orders;
      links.link(link(6));
      expect(links.setPendingChange(6, { seq: 1, status: 'cancelled', paymentStatus: 'unpaid' }, 0)).toBe(
        true,
      );
      expect(links.get(6)?.pendingChange).toEqual({ seq: 1, status: 'cancelled', paymentStatus: 'unpaid' });
      links.commitChange(6, { seq: 1, status: 'cancelled', paymentStatus: 'unpaid' });
      expect(links.get(6)).toMatchObject({ status: 'cancelled', changeSeq: 1, pendingChange: null });
      expect(links.open('2000-01-01T00:00:00Z').has(6)).toBe(false);
    });

    it('refuses a pending change once feedback touched the order, and keeps what feedback delivered at commit', () => {
      const { links } = store.orders;
      links.link(link(7));
      links.link(link(8));
      const mark = links.guardMark();
      const read = links.get(7)!;
      links.beginErpChange(7, { eventId: 'e1', status: 'shipped' });
      expect(links.get(7)).toMatchObject({ erpIntent: { eventId: 'e1', status: 'shipped' } });
      expect(links.get(7)!.guardSeq).toBeGreaterThan(mark);
      expect(
        links.setPendingChange(7, { seq: 1, status: 'processing', paymentStatus: 'unpaid' }, read.guardSeq),
      ).toBe(false);
      links.endErpChange(7, { status: 'shipped' });
      expect(links.get(7)).toMatchObject({ status: 'shipped', erpIntent: null, pendingChange: null });
      expect(links.guardMark()).toBe(links.get(7)!.guardSeq);

      // A change set pending before feedback delivered its state: at commit, feedback's status
      // stays, the change's payment status is taken.
      const before = links.get(8)!;
      const change = {
        seq: 1,
        status: 'confirmed' as const,
        paymentStatus: 'paid' as const,
        fromStatus: before.status,
        fromPaymentStatus: before.paymentStatus,
      };
      expect(links.setPendingChange(8, change, before.guardSeq)).toBe(true);
      links.beginErpChange(8, { eventId: 'e2', status: 'shipped' });
      links.endErpChange(8, { status: 'shipped' });
      links.commitChange(8, change);
      expect(links.get(8)).toMatchObject({ status: 'shipped', paymentStatus: 'paid', changeSeq: 1 });
    });
  });
});
