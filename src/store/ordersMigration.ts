import type { SqlDatabase } from './sql/SqlDatabase.js';

/**
 * Tables of the order pipelines (issue 5). Version 50 leaves room for the other features'
 * migrations before it; versions need not be contiguous.
 */
// Shaped like Migration (not imported: migrations.ts imports this file).
export const ORDERS_MIGRATION: { version: number; name: string; up(db: SqlDatabase): void } = {
  version: 50,
  name: 'order links, lines, seen orders, parked orders, applied events, outgoing orders',
  up(db) {
    db.exec(`
      -- A platform order the ERP confirmed it imported. status/payment_status: the state last
      -- delivered to the ERP; pending_change: a change being delivered (redone after a crash).
      CREATE TABLE order_links (
        platform_order_id INTEGER PRIMARY KEY,
        erp_ref TEXT NOT NULL,
        number TEXT,
        status TEXT NOT NULL,
        payment_status TEXT NOT NULL,
        change_seq INTEGER NOT NULL DEFAULT 0,
        pending_change TEXT,
        platform_created_at TEXT,
        imported_at TEXT NOT NULL,
        acknowledged_at TEXT,
        updated_at TEXT NOT NULL
      );
      CREATE INDEX order_links_erp_ref ON order_links (erp_ref);
      CREATE INDEX order_links_imported ON order_links (imported_at);

      -- Units per line of linked and parked orders, for the oversell guard.
      CREATE TABLE order_lines (
        platform_order_id INTEGER NOT NULL,
        line INTEGER NOT NULL,
        sku TEXT NOT NULL,
        quantity INTEGER NOT NULL,
        PRIMARY KEY (platform_order_id, line)
      ) WITHOUT ROWID;
      CREATE INDEX order_lines_sku ON order_lines (sku);

      -- Every order a poll found: queued until decided, then imported/parked/skipped/erp_origin.
      CREATE TABLE orders_seen (
        platform_order_id INTEGER PRIMARY KEY,
        outcome TEXT NOT NULL,
        status TEXT,
        platform_created_at TEXT,
        seen_at TEXT NOT NULL
      );
      CREATE INDEX orders_seen_queued ON orders_seen (outcome, platform_created_at);

      CREATE TABLE parked_orders (
        platform_order_id INTEGER PRIMARY KEY,
        number TEXT,
        code TEXT NOT NULL,
        reason TEXT NOT NULL,
        attempts INTEGER NOT NULL,
        first_parked_at TEXT NOT NULL,
        last_attempt_at TEXT NOT NULL,
        next_attempt_at TEXT NOT NULL
      );

      CREATE TABLE applied_events (
        event_id TEXT PRIMARY KEY,
        platform_order_id INTEGER,
        kind TEXT NOT NULL,
        outcome TEXT NOT NULL,
        detail TEXT,
        applied_at TEXT NOT NULL
      );

      -- ERP-origin orders: the intent is recorded before POST /orders, so that an unknown outcome
      -- is reconciled by source_order_id instead of creating the order twice.
      CREATE TABLE outgoing_orders (
        source_order_id TEXT PRIMARY KEY,
        state TEXT NOT NULL,
        platform_order_id INTEGER,
        content_hash TEXT,
        attempts INTEGER NOT NULL DEFAULT 0,
        last_error TEXT,
        erp_recorded INTEGER NOT NULL DEFAULT 0,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      CREATE INDEX outgoing_orders_platform ON outgoing_orders (platform_order_id);
    `);
  },
};

/**
 * The echo guard of order feedback (issue 18): what the ERP is having done to an order on the
 * platform right now, and a store-wide sequence that moves whenever feedback touches an order's
 * delivered state, so the orders pipeline can tell a list read before that touch.
 */
export const ORDERS_ECHO_GUARD_MIGRATION: { version: number; name: string; up(db: SqlDatabase): void } = {
  version: 60,
  name: 'order links: the ERP change in flight and the feedback sequence (echo guard)',
  up(db) {
    db.exec(`
      -- JSON {status?, paymentStatus?, eventId}: written before feedback's platform calls, cleared
      -- once the event is applied or refused.
      ALTER TABLE order_links ADD COLUMN erp_intent TEXT;
      -- max(guard_seq) + 1 at each feedback touch (intent written, state delivered).
      ALTER TABLE order_links ADD COLUMN guard_seq INTEGER NOT NULL DEFAULT 0;
      CREATE INDEX order_links_guard_seq ON order_links (guard_seq);
    `);
  },
};
