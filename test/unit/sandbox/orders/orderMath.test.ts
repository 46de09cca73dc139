import { describe, expect, it } from 'vitest';
import { orderTotals, STATUS_MOVES } from '../../../../src/sandbox/orders/orderMath.js';

describe('orderTotals', () => {
  it('computes VAT-inclusive totals', () => {
    expect(
      orderTotals(
        [
          { quantity: 2, unit_price: 119, tax_rate: 19 },
          { quantity: 1, unit_price: 10.9, tax_rate: 9 },
        ],
        15,
        5,
      ),
    ).toEqual({
      subtotal: 248.9,
      shipping_total: 15,
      discount_total: 5,
      tax_total: 38.9,
      total: 258.9,
    });
  });
});

describe('STATUS_MOVES', () => {
  it('makes cancelled and returned final', () => {
    expect(STATUS_MOVES.cancelled).toEqual([]);
    expect(STATUS_MOVES.returned).toEqual([]);
  });
});
