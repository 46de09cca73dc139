import type { SqlDatabase, SqlStatement } from './sql/SqlDatabase.js';
import { itemKeyString, type ItemKey } from '../domain/records.js';
import { chunks } from './chunks.js';

/** A SKU (or variant SKU) of the ERP and the product (and variant) it is on the platform. */
export interface ProductLink {
  sku: string;
  variantSku: string | null;
  productId: number;
  variantId: number | null;
  platformUpdatedAt: string | null;
}

interface LinkRow {
  sku: string;
  variant_sku: string;
  product_id: number;
  variant_id: number | null;
  platform_updated_at: string | null;
}

const CHUNK = 500;

export class ProductLinkRepository {
  readonly #upsert: SqlStatement<[string, string, number, number | null, string | null, string]>;
  readonly #get: SqlStatement<[string, string], LinkRow>;
  readonly #getMany: SqlStatement<[string], LinkRow>;
  readonly #all: SqlStatement<[], LinkRow>;
  readonly #byProduct: SqlStatement<[number], LinkRow>;
  readonly #count: SqlStatement<[], { n: number }>;
  readonly #delete: SqlStatement<[string, string]>;

  constructor(private readonly db: SqlDatabase) {
    const d = db.dialect;
    this.#upsert = db.prepare(
      `INSERT INTO product_links (sku, variant_sku, product_id, variant_id, platform_updated_at, linked_at)
       VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (sku, variant_sku) DO UPDATE SET
         product_id = excluded.product_id,
         variant_id = excluded.variant_id,
         platform_updated_at = excluded.platform_updated_at,
         linked_at = excluded.linked_at`,
    );
    this.#get = db.prepare('SELECT * FROM product_links WHERE sku = ? AND variant_sku = ?');
    // A JSON list keeps one prepared statement for any chunk size; probe() loops over the keys
    // and looks each up by the primary key.
    this.#getMany = db.prepare(
      `SELECT l.* FROM ${d.rows('k')}
       ${d.probe('product_links', 'l', `l.sku = ${d.field('k', 0, 'text')} AND l.variant_sku = ${d.field('k', 1, 'text')}`)}`,
    );
    this.#all = db.prepare('SELECT * FROM product_links ORDER BY sku, variant_sku');
    this.#byProduct = db.prepare('SELECT * FROM product_links WHERE product_id = ? ORDER BY variant_sku');
    this.#count = db.prepare('SELECT count(*) AS n FROM product_links');
    this.#delete = db.prepare('DELETE FROM product_links WHERE sku = ? AND variant_sku = ?');
  }

  /** Inserts or replaces links, all in one transaction. */
  upsertMany(links: Iterable<ProductLink>): void {
    const now = new Date().toISOString();
    this.db.transaction(() => {
      for (const link of links) {
        this.#upsert.run(
          link.sku,
          link.variantSku ?? '',
          link.productId,
          link.variantId,
          link.platformUpdatedAt,
          now,
        );
      }
    });
  }

  get(sku: string, variantSku?: string | null): ProductLink | undefined {
    const row = this.#get.get(sku, variantSku ?? '');
    return row ? toLink(row) : undefined;
  }

  /** Links of many items, keyed by itemKeyString(); items without a link are absent from the map. */
  getMany(keys: readonly ItemKey[]): Map<string, ProductLink> {
    const out = new Map<string, ProductLink>();
    for (const part of chunks(keys, CHUNK)) {
      const pairs = JSON.stringify(part.map((k) => [k.sku, k.variantSku ?? '']));
      for (const row of this.#getMany.all(pairs)) {
        const link = toLink(row);
        out.set(itemKeyString({ sku: link.sku, variantSku: link.variantSku ?? undefined }), link);
      }
    }
    return out;
  }

  /**
   * Every link, streamed from the database in SKU order (a page at a time on PostgreSQL). The store
   * refuses writes while the iteration is open (as better-sqlite3 does): finish (or collect) first.
   */
  *all(): IterableIterator<ProductLink> {
    for (const row of this.#all.iterate()) yield toLink(row);
  }

  byProductId(productId: number): ProductLink[] {
    return this.#byProduct.all(productId).map(toLink);
  }

  count(): number {
    return this.#count.get()!.n;
  }

  delete(sku: string, variantSku?: string | null): void {
    this.#delete.run(sku, variantSku ?? '');
  }
}

function toLink(row: LinkRow): ProductLink {
  return {
    sku: row.sku,
    variantSku: row.variant_sku === '' ? null : row.variant_sku,
    productId: row.product_id,
    variantId: row.variant_id,
    platformUpdatedAt: row.platform_updated_at,
  };
}
