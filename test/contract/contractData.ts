import type { PlatformOrder } from '../../src/domain/orders.js';
import type { PriceRecord, ProductRecord, StockRecord } from '../../src/domain/records.js';

/**
 * The logical data every adapter is tested over, in ERP terms. A record row maps canonical field
 * names (sku, variant_sku, quantity, price, sale_price, cost_price, vat_rate, name, ...) to their
 * text as the ERP holds it; '' means the field is empty. How a source stores it (file lines,
 * table rows, RPC records) is the adapter's business.
 */
export type ContractRow = Record<string, string>;

export type Expected<T> =
  { index: number; record: T } | { index: number; reason: string; duplicateOf?: number };

const LONG_NAME = 'N'.repeat(192);

export const CONTRACT_STOCK: { row: ContractRow; expect: Expected<StockRecord> }[] = [
  { row: { sku: 'A-1', quantity: '10' }, expect: { index: 0, record: { sku: 'A-1', quantity: 10 } } },
  { row: { sku: 'A-2', quantity: '0' }, expect: { index: 1, record: { sku: 'A-2', quantity: 0 } } },
  {
    row: { sku: 'TS', variant_sku: 'TS-M', quantity: '4' },
    expect: { index: 2, record: { sku: 'TS', variantSku: 'TS-M', quantity: 4 } },
  },
  {
    row: { sku: 'TS', variant_sku: 'TS-L', quantity: '2' },
    expect: { index: 3, record: { sku: 'TS', variantSku: 'TS-L', quantity: 2 } },
  },
  { row: { sku: '', quantity: '5' }, expect: { index: 4, reason: 'missing sku' } },
  { row: { sku: 'B-1', quantity: 'abc' }, expect: { index: 5, reason: 'quantity is not a number: "abc"' } },
  {
    row: { sku: 'B-2', quantity: '-3' },
    expect: { index: 6, reason: 'quantity must be at least 0, got -3' },
  },
  {
    row: { sku: 'B-3', quantity: '2.5' },
    expect: { index: 7, reason: 'quantity must be a whole number, got 2.5' },
  },
  { row: { sku: 'A-1', quantity: '99' }, expect: { index: 8, reason: 'duplicate', duplicateOf: 0 } },
  {
    row: { sku: 'TS', variant_sku: 'TS-M', quantity: '1' },
    expect: { index: 9, reason: 'duplicate', duplicateOf: 2 },
  },
  { row: { sku: 'B-4', quantity: '' }, expect: { index: 10, reason: 'missing quantity' } },
  { row: { sku: ' C-1 ', quantity: ' 7 ' }, expect: { index: 11, record: { sku: 'C-1', quantity: 7 } } },
  { row: { sku: 'ȘAL-ț', quantity: '3' }, expect: { index: 12, record: { sku: 'ȘAL-ț', quantity: 3 } } },
];

/**
 * Every prices row carries `sale_price`: a CSV column is in every row or in none, and an empty
 * sale price means "no sale price" (null, cleared on the platform), unlike an empty price,
 * cost_price or vat_rate, which is not sent. A file without the field says nothing about it
 * (tested per adapter: the contract's rows cannot leave a CSV column out of one row only).
 */
export const CONTRACT_PRICES: { row: ContractRow; expect: Expected<PriceRecord> }[] = [
  {
    row: { sku: 'A-1', price: '12.50', sale_price: '9.99', cost_price: '7', vat_rate: '19' },
    expect: { index: 0, record: { sku: 'A-1', price: 12.5, salePrice: 9.99, costPrice: 7, vatRate: 19 } },
  },
  {
    row: { sku: 'A-2', price: '5', sale_price: '' },
    expect: { index: 1, record: { sku: 'A-2', price: 5, salePrice: null } },
  },
  {
    row: { sku: 'TS', variant_sku: 'TS-M', price: '30', sale_price: '', vat_rate: '9' },
    expect: { index: 2, record: { sku: 'TS', variantSku: 'TS-M', price: 30, salePrice: null, vatRate: 9 } },
  },
  {
    row: { sku: 'B-1', price: 'x', sale_price: '' },
    expect: { index: 3, reason: 'price is not a number: "x"' },
  },
  {
    row: { sku: 'B-2', price: '10', sale_price: '', vat_rate: '120' },
    expect: { index: 4, reason: 'vat_rate must be between 0 and 100, got 120' },
  },
  {
    row: { sku: 'B-3', sale_price: '-1' },
    expect: { index: 5, reason: 'sale_price must be at least 0, got -1' },
  },
  {
    row: { sku: 'B-4', price: '', sale_price: '', cost_price: '', vat_rate: '' },
    expect: { index: 6, record: { sku: 'B-4', salePrice: null } },
  },
  {
    row: { sku: 'A-2', price: '6', sale_price: '1' },
    expect: { index: 7, reason: 'duplicate', duplicateOf: 1 },
  },
  { row: { sku: '', price: '1', sale_price: '' }, expect: { index: 8, reason: 'missing sku' } },
  {
    row: { sku: 'TS', variant_sku: 'TS-L', sale_price: '25' },
    expect: { index: 9, record: { sku: 'TS', variantSku: 'TS-L', salePrice: 25 } },
  },
];

export const CONTRACT_PRODUCTS: { row: ContractRow; expect: Expected<ProductRecord> }[] = [
  {
    row: {
      sku: 'P-1',
      name: 'Pix albastru',
      price: '2.5',
      vat_rate: '19',
      status: 'active',
      ean: '5941234567890',
    },
    expect: {
      index: 0,
      record: {
        sku: 'P-1',
        name: 'Pix albastru',
        price: 2.5,
        vatRate: 19,
        status: 'active',
        ean: '5941234567890',
      },
    },
  },
  {
    row: { sku: 'P-2', name: LONG_NAME },
    expect: { index: 1, reason: 'name is longer than 191 characters (192)' },
  },
  { row: { sku: 'P-3', name: '' }, expect: { index: 2, reason: 'missing name' } },
  {
    row: { sku: 'P-4', name: 'Caiet A5', stock_quantity: '12', weight_grams: '250' },
    expect: { index: 3, record: { sku: 'P-4', name: 'Caiet A5', stockQuantity: 12, weightGrams: 250 } },
  },
];

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

/** Everything a source can be seeded with; a kind left out of `seed()` is left as it is. */
export interface ContractSeed {
  stock: ContractRow[];
  prices: ContractRow[];
  products: ContractRow[];
  events: ContractEvent[];
  outgoing: ContractOutgoing[];
}

export type ContractKind = 'stock' | 'prices' | 'products';

export type ContractEvent = (typeof CONTRACT_EVENTS)[number];
export type ContractOutgoing = (typeof CONTRACT_OUTGOING)[number];

export const CONTRACT_SEED: ContractSeed = {
  stock: CONTRACT_STOCK.map((c) => c.row),
  prices: CONTRACT_PRICES.map((c) => c.row),
  products: CONTRACT_PRODUCTS.map((c) => c.row),
  events: CONTRACT_EVENTS,
  outgoing: CONTRACT_OUTGOING,
};

export const EMPTY_SEED: ContractSeed = { stock: [], prices: [], products: [], events: [], outgoing: [] };

/** How an ERP-origin order is written in ERP terms (the inbox JSON shape; a table may hold the same). */
export function outgoingOrderDocument(order: ContractOutgoing, index: number): Record<string, unknown> {
  return {
    source_order_id: order.sourceOrderId,
    customer: { name: `Customer ${index}`, email: order.customerEmail },
    items: order.items,
  };
}

/** How a contract event is written as an ERP row (column name -> value). */
export function eventRow(event: ContractEvent): Record<string, unknown> {
  const row: Record<string, unknown> = { event: event.event };
  if (event.orderId !== undefined) row.order_id = event.orderId;
  if (event.erpRef !== undefined) row.erp_ref = event.erpRef;
  for (const key of ['courier', 'weight', 'parcels', 'note'] as const) {
    if (event[key] !== undefined) row[key] = event[key];
  }
  if (event.labels) row.labels = event.labels.join('|');
  return row;
}

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
      address: {
        street: 'Str. Lunga 1',
        city: 'Brasov',
        postalCode: '500001',
        county: 'Brasov',
        country: 'RO',
      },
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
