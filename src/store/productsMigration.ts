import type { SqlDatabase } from './sql/SqlDatabase.js';

/**
 * Tables of the products pipeline (issue 14). Version 51: the next free one after the orders' 50.
 */
// Shaped like Migration (not imported: migrations.ts imports this file).
export const PRODUCTS_MIGRATION: { version: number; name: string; up(db: SqlDatabase): void } = {
  version: 51,
  name: 'product creates (intent before POST /products), product field fingerprints',
  up(db) {
    db.exec(`
      -- A create of a SKU the platform lacked. pending: intent recorded, the POST may have gone
      -- out; unknown: a POST went out and its answer was lost; rejected: the platform refused
      -- this content (422). A pending or unknown SKU is searched before any new POST. The row is
      -- deleted once the platform confirmed the product (the product link takes over).
      CREATE TABLE product_creates (
        sku TEXT PRIMARY KEY,
        state TEXT NOT NULL,
        content_hash TEXT,
        attempts INTEGER NOT NULL DEFAULT 0,
        last_error TEXT,
        updated_at TEXT NOT NULL
      ) WITHOUT ROWID;

      -- The last value the platform acknowledged per product field (JSON object field -> value
      -- fingerprint). A field being sent is removed first (in flight: unknown, sent again).
      CREATE TABLE product_fingerprints (
        sku TEXT PRIMARY KEY,
        fields TEXT NOT NULL,
        acked_at TEXT NOT NULL
      ) WITHOUT ROWID;
    `);
  },
};
