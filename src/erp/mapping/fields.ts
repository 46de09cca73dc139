/** What a record stream holds: stock, prices or product master data. */
export type RecordKind = 'stock' | 'prices' | 'products';

/** Canonical field names, spelled as the API spells them. */
export const FIELDS: Record<RecordKind, readonly string[]> = {
  stock: ['sku', 'variant_sku', 'quantity'],
  prices: ['sku', 'variant_sku', 'price', 'sale_price', 'cost_price', 'vat_rate'],
  products: [
    'sku',
    'name',
    'status',
    'ean',
    'mpn',
    'price',
    'sale_price',
    'cost_price',
    'vat_rate',
    'stock_quantity',
    'track_stock',
    'weight_grams',
    'short_description',
    'long_description',
    'type',
    'brand_id',
    'brand',
    'category_id',
    'category',
    'length_mm',
    'width_mm',
    'height_mm',
    'highlights',
    'meta_title',
    'meta_description',
    'variants',
  ],
};

/** Column (header, key) aliases as ERP exports spell them (English and Romanian), before normalisation. */
export const DEFAULT_ALIASES: Record<string, readonly string[]> = {
  sku: ['sku', 'cod', 'code', 'product_code', 'cod_produs', 'item_code'],
  variant_sku: ['variant_sku', 'variant', 'variant_code', 'cod_varianta'],
  quantity: ['quantity', 'qty', 'stock', 'stoc', 'cantitate', 'stock_quantity'],
  price: ['price', 'pret', 'pret_vanzare'],
  sale_price: ['sale_price', 'pret_promo', 'pret_redus', 'special_price'],
  cost_price: ['cost_price', 'cost', 'pret_achizitie'],
  vat_rate: ['vat_rate', 'vat', 'tva', 'cota_tva'],
  name: ['name', 'denumire', 'nume', 'title'],
  status: ['status'],
  ean: ['ean', 'barcode', 'cod_bare'],
  mpn: ['mpn'],
  stock_quantity: ['stock_quantity', 'quantity', 'qty', 'stock', 'stoc', 'cantitate'],
  track_stock: ['track_stock'],
  weight_grams: ['weight_grams', 'weight', 'greutate'],
  short_description: ['short_description', 'descriere_scurta'],
  long_description: ['long_description', 'description', 'descriere'],
  type: ['type', 'product_type', 'tip'],
  brand_id: ['brand_id'],
  brand: ['brand', 'brand_name', 'marca', 'producator', 'manufacturer'],
  category_id: ['category_id'],
  category: ['category', 'category_name', 'categorie'],
  length_mm: ['length_mm', 'length', 'lungime'],
  width_mm: ['width_mm', 'width', 'latime'],
  height_mm: ['height_mm', 'height', 'inaltime'],
  highlights: ['highlights', 'bullets', 'caracteristici'],
  meta_title: ['meta_title', 'seo_title'],
  meta_description: ['meta_description', 'seo_description'],
  variants: ['variants', 'variante'],
};

/** `Sale Price`, `sale-price`, `SALE_PRICE` and `salePrice` all become `sale_price`. */
export function normaliseHeader(header: string): string {
  return header
    .replace(/^\uFEFF/, '')
    .trim()
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[\s\-.]+/g, '_');
}
