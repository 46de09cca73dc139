/** Wire records as the sandbox documents them, for scripted stub answers. */
export function productRecord(id: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id,
    sku: `SKU-${id}`,
    name: `Product ${id}`,
    status: 'active',
    type: 'simple',
    price: 10 + id,
    sale_price: null,
    cost_price: 5,
    vat_rate: 19,
    stock_quantity: id * 2,
    variants: [],
    brand: null,
    category: null,
    created_at: '2026-01-01T00:00:00Z',
    updated_at: '2026-01-02T00:00:00Z',
    ...extra,
  };
}

export function orderRecord(id: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id,
    number: `CMD-${id}`,
    status: 'new',
    payment_status: 'unpaid',
    currency: 'RON',
    source_order_id: null,
    customer_id: 3,
    customer: {
      id: 3,
      name: 'Ana Pop',
      email: 'ana@example.com',
      phone: null,
      company_name: null,
      cui: null,
      reg_com: null,
    },
    items: [
      {
        product_id: 1,
        variant_id: null,
        sku: 'SKU-1',
        name: 'Product 1',
        quantity: 2,
        unit_price: 11,
        tax_rate: 19,
        total: 22,
      },
    ],
    subtotal: 22,
    shipping_total: 5,
    discount_total: 0,
    tax_total: 3.51,
    total: 27,
    payment_method: null,
    shipping_method: null,
    notes: null,
    labels: [],
    history: [],
    awb: null,
    invoice: null,
    created_at: '2026-01-01T00:00:00Z',
    updated_at: '2026-01-01T00:00:00Z',
    ...extra,
  };
}
