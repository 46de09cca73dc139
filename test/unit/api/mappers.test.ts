import { describe, expect, it } from 'vitest';
import { fullOrder, toPlatformOrder } from '../../../src/api/mappers.js';
import { apiOrderSchema, apiOrderSummarySchema } from '../../../src/api/schemas.js';

const wire = {
  id: 12,
  number: 1012,
  status: 'shipped',
  payment_status: 'paid',
  currency: 'RON',
  source_order_id: 'ERP-9',
  customer_id: 4,
  customer: { id: 4, name: 'Ion', email: 'ion@example.com', company_name: 'SRL', cui: 'RO1', reg_com: 'J1' },
  items: [
    {
      product_id: 1,
      variant_id: 2,
      sku: 'A',
      name: 'Mug',
      quantity: 2,
      unit_price: 10,
      tax_rate: 19,
      total: 20,
    },
  ],
  subtotal: 20,
  shipping_total: 5,
  discount_total: 1,
  tax_total: 3.19,
  total: 24,
  awb: { number: 'TEST123', courier: 'fan', cod_amount: 0 },
  invoice: { series: 'INV', number: 7, total: 24 },
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-02T00:00:00Z',
  marketplace: 'emag',
};

describe('toPlatformOrder', () => {
  it('maps wire fields to the domain order and keeps the record as received', () => {
    const order = toPlatformOrder(apiOrderSchema.parse(wire));
    expect(order).toMatchObject({
      id: 12,
      number: '1012',
      status: 'shipped',
      paymentStatus: 'paid',
      sourceOrderId: 'ERP-9',
      customer: {
        id: 4,
        name: 'Ion',
        email: 'ion@example.com',
        phone: null,
        companyName: 'SRL',
        cui: 'RO1',
        regCom: 'J1',
      },
      items: [
        {
          productId: 1,
          variantId: 2,
          sku: 'A',
          name: 'Mug',
          quantity: 2,
          unitPrice: 10,
          taxRate: 19,
          total: 20,
        },
      ],
      subtotal: 20,
      shippingTotal: 5,
      discountTotal: 1,
      taxTotal: 3.19,
      total: 24,
      awbNumber: 'TEST123',
      invoiceNumber: '7',
      createdAt: '2026-01-01T00:00:00Z',
      updatedAt: '2026-01-02T00:00:00Z',
    });
    expect(order.raw).toEqual(wire);
  });

  it('falls back to customer_id and nulls when the customer object and documents are absent', () => {
    const order = toPlatformOrder(
      apiOrderSchema.parse({ ...wire, customer: null, awb: null, invoice: null, source_order_id: null }),
    );
    expect(order.customer).toEqual({
      id: 4,
      name: '',
      email: null,
      phone: null,
      companyName: null,
      cui: null,
      regCom: null,
      address: null,
    });
    expect(order.awbNumber).toBeNull();
    expect(order.invoiceNumber).toBeNull();
    expect(order.sourceOrderId).toBeNull();
  });
});

describe("the customer's address, in every plausible shape", () => {
  const address = (order: Record<string, unknown>) =>
    toPlatformOrder(apiOrderSchema.parse({ ...wire, ...order })).customer.address;
  const customer = wire.customer;
  const cluj = {
    street: 'Str. Lunga 1',
    city: 'Cluj-Napoca',
    postalCode: '400001',
    county: 'Cluj',
    country: 'RO',
  };

  it('reads it under the customer (address, shipping_address, billing_address) as the sandbox serves it', () => {
    const nested = {
      street: 'Str. Lunga 1',
      city: 'Cluj-Napoca',
      postal_code: '400001',
      county: 'Cluj',
      country: 'RO',
    };
    expect(address({ customer: { ...customer, address: nested } })).toEqual(cluj);
    expect(address({ customer: { ...customer, shipping_address: nested } })).toEqual(cluj);
    expect(address({ customer: { ...customer, billing_address: nested } })).toEqual(cluj);
  });

  it('prefers the shipping address, and reads other names of the parts', () => {
    const billing = { address1: 'Billing 9', town: 'Iasi', zip: 700001 };
    const shipping = {
      line1: 'Str. Lunga 1',
      city: 'Cluj-Napoca',
      postcode: '400001',
      state: 'Cluj',
      country: { code: 'RO' },
    };
    expect(
      address({ customer: { ...customer, billing_address: billing, shipping_address: shipping } }),
    ).toEqual(cluj);
    expect(address({ customer: { ...customer, billing_address: billing } })).toEqual({
      street: 'Billing 9',
      city: 'Iasi',
      postalCode: '700001',
      county: null,
      country: null,
    });
  });

  it('reads it on the order itself, at the customer top level, or as a bare street', () => {
    const flat = {
      street: 'Str. Lunga 1',
      city: 'Cluj-Napoca',
      postal_code: '400001',
      county: 'Cluj',
      country: 'RO',
    };
    expect(address({ shipping_address: flat })).toEqual(cluj);
    expect(address({ customer: { ...customer, ...flat } })).toEqual(cluj);
    expect(address({ customer: { ...customer, address: 'Str. Lunga 1' } })).toEqual({
      street: 'Str. Lunga 1',
      city: null,
      postalCode: null,
      county: null,
      country: null,
    });
  });

  it('is null when the order carries none (empty parts are none)', () => {
    expect(address({})).toBeNull();
    expect(address({ customer: { ...customer, address: { street: ' ', city: null } } })).toBeNull();
  });
});

describe('order shapes', () => {
  const { items, ...withoutLines } = wire;

  it('reads the lines under `lines` as under `items`', () => {
    const order = apiOrderSchema.parse({ ...withoutLines, lines: items });
    expect(toPlatformOrder(order).items).toEqual(toPlatformOrder(apiOrderSchema.parse(wire)).items);
  });

  it('accepts a summary without lines and totals, which is not a full order', () => {
    const { subtotal: _s, total: _t, ...summary } = withoutLines;
    const parsed = apiOrderSummarySchema.parse(summary);
    expect(parsed.items).toBeUndefined();
    expect(fullOrder(parsed)).toBeNull();
    expect(apiOrderSchema.safeParse(withoutLines).error?.issues.map((i) => i.path.join('.'))).toEqual([
      'items',
    ]);
  });

  it('takes a listed record as the full order exactly when the full schema does, without parsing it again', () => {
    const variants: Record<string, unknown>[] = [wire, { ...withoutLines, lines: items }, withoutLines];
    for (const field of [
      'number',
      'currency',
      'updated_at',
      'subtotal',
      'shipping_total',
      'discount_total',
      'tax_total',
      'total',
    ])
      variants.push({ ...wire, [field]: null }, { ...wire, [field]: undefined });
    variants.push(
      { ...wire, total: '12.50' },
      { ...wire, items: null, lines: items },
      { ...wire, items: null },
    );
    for (const variant of variants) {
      const summary = apiOrderSummarySchema.safeParse(variant);
      if (!summary.success) continue;
      const strict = apiOrderSchema.safeParse(variant);
      expect(fullOrder(summary.data), JSON.stringify(variant)).toEqual(strict.success ? strict.data : null);
    }
  });

  it('takes a listed record with lines and totals as the full order', () => {
    const full = fullOrder(apiOrderSummarySchema.parse({ ...withoutLines, lines: items }));
    expect(full?.items[0]?.sku).toBe('A');
  });
});
