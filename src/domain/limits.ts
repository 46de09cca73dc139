/** The limits of section 8 (and the field rules of section 2) of the API v2 specification. */
export const LIMITS = {
  perPageMin: 1,
  perPageMax: 100,
  perPageDefault: 50,
  productNameMax: 191,
  vatRateMin: 0,
  vatRateMax: 100,
  taxRateMin: 0,
  taxRateMax: 100,
  orderLineQuantityMin: 1,
  stockQuantityMin: 0,
  awbParcelsMin: 1,
  orderStatusNoteMax: 500,
  orderLabelMax: 60,
  customerNotesMax: 2000,
  tagNameMax: 60,
  tagColorMax: 32,
  /** Not in the spec; the sandbox's documented choice, and our batching ceiling. */
  bulkItemsMax: 1000,
  /** Not in the spec (a SKU is "an internal code"); the sandbox's and common platforms' bound. */
  skuMax: 100,
} as const;

export const PRODUCT_STATUSES = ['active', 'draft', 'archived'] as const;
export type ProductStatus = (typeof PRODUCT_STATUSES)[number];

export const PRODUCT_TYPES = ['simple', 'variable'] as const;
export type ProductType = (typeof PRODUCT_TYPES)[number];

/** The product fields a client writes (section 2), in the order the spec lists them. */
export const PRODUCT_WRITABLE_FIELDS = [
  'name',
  'status',
  'sku',
  'slug',
  'ean',
  'mpn',
  'brand_id',
  'category_id',
  'price',
  'sale_price',
  'cost_price',
  'vat_rate',
  'stock_quantity',
  'track_stock',
  'highlights',
  'short_description',
  'long_description',
  'weight_grams',
  'length_mm',
  'width_mm',
  'height_mm',
  'meta_title',
  'meta_description',
] as const;
export type ProductWritableField = (typeof PRODUCT_WRITABLE_FIELDS)[number];

/** What identifies a product: never left to the platform (products.platformOwned). */
const PRODUCT_IDENTIFIERS: readonly ProductWritableField[] = ['sku', 'slug'];
export type ProductOwnableField = Exclude<ProductWritableField, 'sku' | 'slug'>;

/** Writable product fields an integrator may mark platform-owned (never written by the products pipeline). */
export const PRODUCT_OWNABLE_FIELDS = PRODUCT_WRITABLE_FIELDS.filter(
  (field): field is ProductOwnableField => !PRODUCT_IDENTIFIERS.includes(field),
);

export const ORDER_STATUSES = ['new', 'confirmed', 'processing', 'shipped', 'cancelled', 'returned'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

export const PAYMENT_STATUSES = ['unpaid', 'paid', 'partial', 'refunded'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

export const COURIERS = [
  'fan',
  'sameday',
  'cargus',
  'dpd',
  'gls',
  'dragonstar',
  'urgent',
  'posta',
  'other',
] as const;
export type Courier = (typeof COURIERS)[number];
