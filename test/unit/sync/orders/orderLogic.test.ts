import { describe, expect, it } from 'vitest';
import type { OrderLink } from '../../../../src/store/OrderLinkRepository.js';
import { statusReached, stepNote, stepsTowards } from '../../../../src/sync/orders/lifecycleWalk.js';
import { feedbackActionFor } from '../../../../src/sync/orders/feedbackActions.js';
import {
  nextOrderChange,
  toOrderChange,
  withoutErpCaused,
} from '../../../../src/sync/orders/orderChanges.js';

function link(extra: Partial<OrderLink> = {}): OrderLink {
  return {
    platformOrderId: 5,
    erpRef: '5.json',
    number: 'N5',
    status: 'new',
    paymentStatus: 'unpaid',
    changeSeq: 0,
    pendingChange: null,
    platformCreatedAt: null,
    importedAt: '2026-01-01T00:00:00Z',
    acknowledgedAt: null,
    updatedAt: '2026-01-01T00:00:00Z',
    erpIntent: null,
    guardSeq: 0,
    ...extra,
  };
}

describe('order change detection', () => {
  it('finds no change when the ERP has the platform state', () => {
    expect(nextOrderChange(link(), { status: 'new', paymentStatus: 'unpaid' })).toBeNull();
  });

  it('numbers each change after the last delivered one and names only what moved', () => {
    const pending = nextOrderChange(link({ changeSeq: 2 }), { status: 'cancelled', paymentStatus: 'unpaid' });
    expect(pending).toEqual({
      seq: 3,
      status: 'cancelled',
      paymentStatus: 'unpaid',
      fromStatus: 'new',
      fromPaymentStatus: 'unpaid',
    });
    expect(toOrderChange(link({ changeSeq: 2 }), pending!)).toEqual({
      orderId: 5,
      erpRef: '5.json',
      seq: 3,
      status: 'cancelled',
      previousStatus: 'new',
    });
  });

  it('delivers a change left pending by a killed run again, with its seq, before anything newer', () => {
    const pendingChange = { seq: 1, status: 'new' as const, paymentStatus: 'paid' as const };
    expect(nextOrderChange(link({ pendingChange }), { status: 'cancelled', paymentStatus: 'paid' })).toEqual(
      pendingChange,
    );
  });
});

describe('echo guard: states an ERP event in flight causes', () => {
  const walkingToShipped = link({ erpIntent: { eventId: 'e1', status: 'shipped' } });

  it('reads every status on the way to the ERP status, and that status, as the ERP has it', () => {
    for (const status of ['confirmed', 'processing', 'shipped'] as const) {
      const seen = withoutErpCaused(walkingToShipped, { status, paymentStatus: 'unpaid' });
      expect(nextOrderChange(walkingToShipped, seen)).toBeNull();
    }
  });

  it('still delivers a change the ERP did not ask for (cancelled meanwhile, a payment)', () => {
    expect(withoutErpCaused(walkingToShipped, { status: 'cancelled', paymentStatus: 'unpaid' })).toEqual({
      status: 'cancelled',
      paymentStatus: 'unpaid',
    });
    // A payment arriving while the ERP walks the order: only the payment is a change.
    expect(withoutErpCaused(walkingToShipped, { status: 'processing', paymentStatus: 'paid' })).toEqual({
      status: 'new',
      paymentStatus: 'paid',
    });
    const paying = link({ erpIntent: { eventId: 'e2', paymentStatus: 'paid' } });
    expect(withoutErpCaused(paying, { status: 'cancelled', paymentStatus: 'paid' })).toEqual({
      status: 'cancelled',
      paymentStatus: 'unpaid',
    });
  });

  it('changes nothing without an ERP event in flight', () => {
    expect(withoutErpCaused(link(), { status: 'shipped', paymentStatus: 'paid' })).toEqual({
      status: 'shipped',
      paymentStatus: 'paid',
    });
  });
});

describe('feedback actions', () => {
  it('turns a shipped event into a status change with its note and labels', () => {
    expect(
      feedbackActionFor(
        { eventId: 'e', orderId: 1, kind: 'shipped', note: 'left the warehouse', labels: ['erp'] },
        'fan',
      ),
    ).toEqual({
      type: 'update',
      status: 'shipped',
      input: { status: 'shipped', note: 'left the warehouse', labels: ['erp'] },
    });
  });

  it('turns an awb event into an AWB request with the default courier when none is named', () => {
    expect(
      feedbackActionFor({ eventId: 'e', orderId: 1, kind: 'awb', weight: 2, parcels: 1 }, 'sameday'),
    ).toEqual({
      type: 'awb',
      input: { courier: 'sameday', weight: 2, parcels: 1 },
    });
  });

  it('turns invoiced into an invoice request and paid into a payment status change', () => {
    expect(feedbackActionFor({ eventId: 'e', orderId: 1, kind: 'invoiced' }, 'fan')).toEqual({
      type: 'invoice',
    });
    expect(feedbackActionFor({ eventId: 'e', orderId: 1, kind: 'paid' }, 'fan')).toEqual({
      type: 'update',
      input: { payment_status: 'paid' },
    });
  });

  it('cuts a note to the 500 characters the platform accepts', () => {
    const action = feedbackActionFor(
      { eventId: 'e', orderId: 1, kind: 'cancelled', note: 'x'.repeat(600) },
      'fan',
    );
    expect(action.type === 'update' && action.input.note?.length).toBe(500);
  });
});

describe('a feedback status move already passed', () => {
  it('counts the requested status or any later one on the forward path; cancelled only equals itself', () => {
    expect(statusReached('shipped', 'confirmed')).toBe(true);
    expect(statusReached('processing', 'processing')).toBe(true);
    expect(statusReached('returned', 'shipped')).toBe(true);
    expect(statusReached('cancelled', 'cancelled')).toBe(true);
    expect(statusReached('new', 'confirmed')).toBe(false);
    expect(statusReached('cancelled', 'confirmed')).toBe(false); // a real conflict: a reject
    expect(statusReached('shipped', 'cancelled')).toBe(false);
    expect(statusReached('confirmed', 'cancelled')).toBe(false);
  });
});

describe('the lifecycle walk', () => {
  it('steps strictly between the order status and the requested one, along the forward path only', () => {
    expect(stepsTowards('new', 'shipped')).toEqual(['confirmed', 'processing']);
    expect(stepsTowards('new', 'returned')).toEqual(['confirmed', 'processing', 'shipped']);
    expect(stepsTowards('confirmed', 'processing')).toEqual([]);
    expect(stepsTowards('shipped', 'confirmed')).toEqual([]);
    expect(stepsTowards('cancelled', 'shipped')).toEqual([]);
    expect(stepsTowards('new', 'cancelled')).toEqual([]);
  });

  it('leaves a bounded note naming the target and the event on an intermediate step', () => {
    const event = { eventId: 'x'.repeat(600), kind: 'shipped' } as Parameters<typeof stepNote>[1];
    expect(stepNote('shipped', event)).toMatch(/^erp-sync: step towards shipped \(ERP event x+$/);
    expect(stepNote('shipped', event).length).toBe(500);
  });
});
