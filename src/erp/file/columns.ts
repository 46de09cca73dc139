/** What each input file holds: stock, prices or product master data. */
export type InputKind = 'stock' | 'prices' | 'products';

/** Canonical field names, spelled as the API spells them. */
export const FIELDS: Record<InputKind, readonly string[]> = {
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
  ],
};

/** Header aliases as ERP exports spell them (English and Romanian), before normalisation. */
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

/**
 * Maps raw header or key names to the canonical fields of one kind of file. Configured aliases
 * (config `erp.columns`, keyed by canonical field) come first, then the defaults. Unknown
 * headers map to undefined and are ignored.
 */
export class ColumnMap {
  readonly #byAlias = new Map<string, string>();
  readonly #cache = new Map<string, string | undefined>();

  constructor(kind: InputKind, extra: Record<string, readonly string[]> = {}) {
    const fields = FIELDS[kind];
    const extraByField = new Map(
      Object.entries(extra).map(([field, aliases]) => [normaliseHeader(field), aliases]),
    );
    // Configured aliases win over defaults; within defaults, a field's own name wins over another field's alias.
    for (const field of fields) {
      for (const alias of extraByField.get(field) ?? []) this.#claim(normaliseHeader(alias), field);
    }
    for (const field of fields) this.#claim(field, field);
    for (const field of fields) {
      for (const alias of DEFAULT_ALIASES[field] ?? []) this.#claim(normaliseHeader(alias), field);
    }
  }

  #claim(alias: string, field: string): void {
    if (!this.#byAlias.has(alias)) this.#byAlias.set(alias, field);
  }

  field(header: string): string | undefined {
    if (this.#cache.has(header)) return this.#cache.get(header);
    const field = this.#byAlias.get(normaliseHeader(header));
    if (this.#cache.size < 1_000) this.#cache.set(header, field);
    return field;
  }

  /**
   * Canonical field -> raw value; the first non-empty value wins when two headers map to one field.
   * A field that is there but empty (an empty CSV cell, JSON null or "", an empty XML element or
   * attribute) maps to null, so that a mapper can tell "empty" from "not in the file" (absent).
   */
  pick(fields: Record<string, unknown>): Map<string, unknown> {
    const out = new Map<string, unknown>();
    for (const [header, value] of Object.entries(fields)) {
      const field = this.field(header);
      if (field === undefined) continue;
      if (isEmpty(value)) {
        if (!out.has(field)) out.set(field, null);
      } else if (out.get(field) === undefined || out.get(field) === null) {
        out.set(field, value);
      }
    }
    return out;
  }
}

function isEmpty(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}
