import { describe, expect, it } from 'vitest';
import { ClientValidationError } from '../../../src/api/errors.js';
import {
  checkAwb,
  checkBulkPrices,
  checkBulkStock,
  checkCustomerUpdate,
  checkListQuery,
  checkOrderCreate,
  checkOrderUpdate,
  checkPriceUpdate,
  checkProductCreate,
  checkProductIds,
  checkProductUpdate,
  checkStockUpdate,
  checkTag,
} from '../../../src/api/validation.js';

function fieldErrorsOf(run: () => void): Record<string, string[]> {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ClientValidationError);
    expect((error as ClientValidationError).code).toBe('client_validation');
    return (error as ClientValidationError).fieldErrors;
  }
  throw new Error('expected a ClientValidationError');
}

describe('bulk stock input', () => {
  it('names every bad item by items.N.field', () => {
    const errors = fieldErrorsOf(() =>
      checkBulkStock([
        { sku: 'A', quantity: 1 },
        { sku: 'B', quantity: -1 },
        { quantity: 3 },
        { sku: 'D', quantity: 1.5 },
        { sku: 'E', quantity: 1, delta: 2 },
        { sku: 'F' },
      ]),
    );
    expect(Object.keys(errors).sort()).toEqual([
      'items.1.quantity',
      'items.2.id',
      'items.3.quantity',
      'items.4.quantity',
      'items.5.quantity',
    ]);
  });

  it('refuses more than 1000 items and an empty list', () => {
    const many = Array.from({ length: 1001 }, (_, i) => ({ sku: `S${i}`, quantity: 1 }));
    expect(fieldErrorsOf(() => checkBulkStock(many)).items?.[0]).toContain('at most 1000');
    expect(fieldErrorsOf(() => checkBulkStock([])).items).toBeDefined();
  });

  it('accepts 1000 valid items with variants and deltas', () => {
    const items = Array.from({ length: 1000 }, (_, i) => ({ sku: `S${i}`, variant_sku: `V${i}`, delta: -2 }));
    expect(() => checkBulkStock(items)).not.toThrow();
  });
});

describe('bulk price input', () => {
  it('needs a price field per item and a vat_rate within 0..100', () => {
    const errors = fieldErrorsOf(() =>
      checkBulkPrices([{ sku: 'A' }, { id: 2, vat_rate: 101 }, { id: 3, price: -1 }]),
    );
    expect(Object.keys(errors).sort()).toEqual(['items.0.price', 'items.1.vat_rate', 'items.2.price']);
  });

  it('accepts sale_price null (clears it), alone and on a variant, but not a null price or vat_rate', () => {
    expect(() =>
      checkBulkPrices([
        { sku: 'A', sale_price: null },
        { sku: 'TS', variant_sku: 'TS-M', price: 30, sale_price: null },
      ]),
    ).not.toThrow();
    const errors = fieldErrorsOf(() =>
      checkBulkPrices([
        { sku: 'A', price: null },
        { sku: 'B', vat_rate: null },
      ] as never),
    );
    expect(errors).toEqual({
      'items.0.price': ['must not be null'],
      'items.1.vat_rate': ['must not be null'],
    });
  });
});

describe('product input', () => {
  it('requires a name of at most 191 characters on create', () => {
    expect(fieldErrorsOf(() => checkProductCreate({ price: 1 } as never)).name).toBeDefined();
    expect(fieldErrorsOf(() => checkProductCreate({ name: 'x'.repeat(192) })).name?.[0]).toContain('191');
    expect(() => checkProductCreate({ name: 'Mug', type: 'variable', vat_rate: 19 })).not.toThrow();
  });

  it('counts characters, not UTF-16 units, as the spec and the server do', () => {
    expect(() => checkProductCreate({ name: '🍵'.repeat(191) })).not.toThrow();
    expect(fieldErrorsOf(() => checkProductCreate({ name: '🍵'.repeat(192) })).name).toBeDefined();
    expect(() => checkOrderUpdate({ labels: ['🏷'.repeat(60)], note: 'ă'.repeat(500) })).not.toThrow();
    expect(fieldErrorsOf(() => checkTag({ name: '🏷'.repeat(61) }, true)).name).toBeDefined();
  });

  it('refuses an update without fields, with type, or with a bad status', () => {
    expect(fieldErrorsOf(() => checkProductUpdate({}))['(body)']).toBeDefined();
    expect(fieldErrorsOf(() => checkProductUpdate({ type: 'simple' } as never)).type).toBeDefined();
    expect(fieldErrorsOf(() => checkProductUpdate({ status: 'gone' } as never)).status).toBeDefined();
  });

  it('needs one price field and an integer vat_rate', () => {
    expect(fieldErrorsOf(() => checkPriceUpdate({}))['(body)']).toBeDefined();
    expect(fieldErrorsOf(() => checkPriceUpdate({ vat_rate: 9.5 })).vat_rate).toBeDefined();
  });

  it('accepts sale_price null on a price update and a product update', () => {
    expect(() => checkPriceUpdate({ sale_price: null })).not.toThrow();
    expect(() => checkProductUpdate({ sale_price: null })).not.toThrow();
    expect(fieldErrorsOf(() => checkPriceUpdate({ price: null } as never)).price).toEqual([
      'must not be null',
    ]);
  });

  it('needs exactly one of quantity (>= 0) or delta, and a valid variant id', () => {
    expect(fieldErrorsOf(() => checkStockUpdate({ quantity: -1 }, undefined)).quantity).toBeDefined();
    expect(
      fieldErrorsOf(() => checkStockUpdate({ quantity: 1, delta: 1 } as never, undefined)).quantity,
    ).toBeDefined();
    expect(fieldErrorsOf(() => checkStockUpdate({ delta: 1 }, 0)).variant_id).toBeDefined();
    expect(() => checkStockUpdate({ delta: -5 }, 3)).not.toThrow();
  });
});

describe('order input', () => {
  it('names every rule broken by a create', () => {
    const errors = fieldErrorsOf(() =>
      checkOrderCreate({
        items: [{ sku: 'A', quantity: 1 }, { quantity: 0 }, { product_id: 1, quantity: 1, tax_rate: 120 }],
        currency: 'EURO',
        status: 'lost',
      } as never),
    );
    expect(Object.keys(errors).sort()).toEqual([
      'currency',
      'customer_id',
      'items.1.product_id',
      'items.1.quantity',
      'items.2.tax_rate',
      'status',
    ]);
  });

  it('needs a name for a new customer and at least one line', () => {
    const errors = fieldErrorsOf(() =>
      checkOrderCreate({ customer: { email: 'a@b.c' }, items: [] } as never),
    );
    expect(Object.keys(errors).sort()).toEqual(['customer.name', 'items']);
  });

  it('checks the note and label limits and refuses an empty update', () => {
    expect(fieldErrorsOf(() => checkOrderUpdate({}))['(body)']).toBeDefined();
    const errors = fieldErrorsOf(() =>
      checkOrderUpdate({ note: 'x'.repeat(501), labels: ['ok', 'y'.repeat(61)] }),
    );
    expect(Object.keys(errors).sort()).toEqual(['labels.1', 'note']);
  });

  it('checks the AWB courier and parcels', () => {
    const errors = fieldErrorsOf(() => checkAwb({ courier: 'ups', parcels: 0 } as never));
    expect(Object.keys(errors).sort()).toEqual(['courier', 'parcels']);
    expect(() => checkAwb({})).not.toThrow();
  });
});

describe('other inputs', () => {
  it('checks customer notes, tag limits and product id lists', () => {
    expect(fieldErrorsOf(() => checkCustomerUpdate({ name: '', notes: 'n'.repeat(2001) }))).toHaveProperty(
      'notes',
    );
    expect(fieldErrorsOf(() => checkTag({ name: 't'.repeat(61), color: 'c'.repeat(33) }, true))).toEqual({
      name: ['must be at most 60 characters'],
      color: ['must be at most 32 characters'],
    });
    expect(fieldErrorsOf(() => checkTag({}, false))['(body)']).toBeDefined();
    expect(fieldErrorsOf(() => checkProductIds('tags.attach', [1, 'x', 0]))).toHaveProperty('product_ids.1');
  });

  it('checks list queries against the limits', () => {
    const errors = fieldErrorsOf(() =>
      checkListQuery('products.list', { per_page: 101, page: 0, updated_after: 'yesterday', status: 'x' }, [
        'active',
      ]),
    );
    expect(Object.keys(errors).sort()).toEqual(['page', 'per_page', 'status', 'updated_after']);
    expect(() =>
      checkListQuery('products.list', { per_page: 100, updated_after: '2026-01-01' }),
    ).not.toThrow();
  });
});
