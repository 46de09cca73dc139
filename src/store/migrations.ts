import type { SqlDatabase } from './sql/SqlDatabase.js';
import { ORDERS_ECHO_GUARD_MIGRATION, ORDERS_MIGRATION } from './ordersMigration.js';
import { PRODUCTS_MIGRATION } from './productsMigration.js';

/**
 * The store's schema history. Append only: a released migration is never edited, a change is a
 * new entry with the next version. Each runs once, inside the transaction that records it.
 */
export interface Migration {
  version: number;
  name: string;
  up(db: SqlDatabase): void;
}

export const MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: 'cursors, product links, fingerprints, runs, rejects, leases, generations',
    up(db) {
      db.exec(`
        CREATE TABLE cursors (
          name TEXT PRIMARY KEY,
          value TEXT NOT NULL,
          updated_at TEXT NOT NULL
        );

        -- variant_sku is '' for a product without variants: NULLs are never equal in a key.
        CREATE TABLE product_links (
          sku TEXT NOT NULL,
          variant_sku TEXT NOT NULL DEFAULT '',
          product_id INTEGER NOT NULL,
          variant_id INTEGER,
          platform_updated_at TEXT,
          linked_at TEXT NOT NULL,
          PRIMARY KEY (sku, variant_sku)
        ) WITHOUT ROWID;
        CREATE INDEX product_links_product ON product_links (product_id);

        CREATE TABLE fingerprints (
          pipeline TEXT NOT NULL,
          key TEXT NOT NULL,
          hash TEXT NOT NULL,
          generation INTEGER NOT NULL,
          acked_at TEXT,
          missing INTEGER NOT NULL DEFAULT 0,
          PRIMARY KEY (pipeline, key)
        ) WITHOUT ROWID;

        CREATE TABLE runs (
          id INTEGER PRIMARY KEY AUTOINCREMENT,
          pipeline TEXT NOT NULL,
          status TEXT NOT NULL,
          started_at TEXT NOT NULL,
          finished_at TEXT,
          options TEXT NOT NULL,
          counts TEXT,
          error TEXT
        );
        CREATE INDEX runs_pipeline ON runs (pipeline, id);

        CREATE TABLE rejects (
          pipeline TEXT NOT NULL,
          key TEXT NOT NULL,
          reason TEXT NOT NULL,
          source_file TEXT,
          source_line INTEGER,
          source_row TEXT,
          first_seen TEXT NOT NULL,
          last_seen TEXT NOT NULL,
          count INTEGER NOT NULL,
          resolved_at TEXT,
          PRIMARY KEY (pipeline, key, reason)
        ) WITHOUT ROWID;
        CREATE INDEX rejects_open ON rejects (pipeline, resolved_at);

        CREATE TABLE leases (
          name TEXT PRIMARY KEY,
          owner TEXT NOT NULL,
          expires_at INTEGER NOT NULL
        );

        CREATE TABLE generations (
          name TEXT PRIMARY KEY,
          value INTEGER NOT NULL
        );
      `);
    },
  },
  {
    version: 2,
    name: 'the account the store belongs to; the process of each run',
    up(db) {
      db.exec(`
        -- One row: the platform account this store was filled from (invariant 12).
        CREATE TABLE store_account (
          id INTEGER PRIMARY KEY CHECK (id = 1),
          base_url TEXT NOT NULL,
          company_id TEXT NOT NULL,
          company_name TEXT,
          bound_at TEXT NOT NULL
        );
        -- "host:pid:start" of the process running it: a run whose process is gone was interrupted.
        ALTER TABLE runs ADD COLUMN owner TEXT;
      `);
    },
  },
  ORDERS_MIGRATION,
  PRODUCTS_MIGRATION,
  ORDERS_ECHO_GUARD_MIGRATION,
  {
    version: 70,
    name: 'the account: its tax id, and the address it moved from',
    up(db) {
      db.exec(`
        -- The company's tax id (CUI) from GET /account, compared with the company id: a store is
        -- bound to the company, not to the base URL. NULL in stores bound before: filled in by the next check.
        ALTER TABLE store_account ADD COLUMN company_tax_id TEXT;
        -- The base URL the store was bound to (or last used) before the company answered at base_url.
        ALTER TABLE store_account ADD COLUMN previous_base_url TEXT;
        ALTER TABLE store_account ADD COLUMN moved_at TEXT;
      `);
    },
  },
  {
    version: 71,
    name: 'bulk request sizes learned from the platform',
    up(db) {
      db.exec(`
        -- The most items a bulk endpoint took, lowered on a size refusal (413, "at most N items"),
        -- probed upwards once learned_at (ms since the epoch) is old enough. No row: no limit learned.
        CREATE TABLE bulk_limits (
          endpoint TEXT PRIMARY KEY,
          size INTEGER NOT NULL CHECK (size >= 1),
          learned_at INTEGER NOT NULL
        );
      `);
    },
  },
  {
    version: 72,
    name: 'push batches in flight: one row per batch instead of a mark per item',
    up(db) {
      db.exec(`
        -- A push batch whose answer is not recorded yet: its items as JSON [[key, marker], ...].
        -- Its keys are in flight while no fingerprint of a later generation holds them. The row
        -- goes when the answer is recorded; AUTOINCREMENT: an id is never handed out twice (a
        -- reader caches the items by id).
        CREATE TABLE inflight_batches (
          id INTEGER PRIMARY KEY AUTOINCREMENT,
          pipeline TEXT NOT NULL,
          generation INTEGER NOT NULL,
          items TEXT NOT NULL,
          marked_at TEXT NOT NULL
        );
        CREATE INDEX inflight_batches_pipeline ON inflight_batches (pipeline, generation);
      `);
    },
  },
  {
    version: 73,
    name: 'narrower fingerprint rows: the pipeline as a number, acked_at in ms since the epoch',
    up(db) {
      // A changed push rewrites a row per item: 'stock' in every key and a 24-character time
      // made the rows half as wide again (1474 pages per 100k rows against 843), and the
      // acknowledgements' upsert about 0.05 s of CPU per 100k dearer (bench/RESULTS.md).
      // Pipelines: 1 stock, 2 prices (FingerprintRepository's PIPELINE_CODES).
      db.exec(`
        CREATE TABLE fingerprints_73 (
          pipeline INTEGER NOT NULL,
          key TEXT NOT NULL,
          hash TEXT NOT NULL,
          generation INTEGER NOT NULL,
          acked_at INTEGER,
          missing INTEGER NOT NULL DEFAULT 0,
          PRIMARY KEY (pipeline, key)
        ) WITHOUT ROWID;
        INSERT INTO fingerprints_73 (pipeline, key, hash, generation, acked_at, missing)
          SELECT CASE pipeline WHEN 'stock' THEN 1 WHEN 'prices' THEN 2 END, key, hash, generation,
                 CAST(round((julianday(acked_at) - 2440587.5) * 86400000) AS INTEGER), missing
          FROM fingerprints;
        DROP TABLE fingerprints;
        ALTER TABLE fingerprints_73 RENAME TO fingerprints;
      `);
    },
  },
];
