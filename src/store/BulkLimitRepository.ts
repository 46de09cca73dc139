import type { SqlDatabase, SqlStatement } from './sql/SqlDatabase.js';

/** The most items the platform took in one bulk request of an endpoint, learned from its refusals. */
export interface BulkLimit {
  size: number;
  /** When it was learned or last confirmed (ms since the epoch): probing above it waits from here. */
  learnedAt: number;
}

/**
 * Learned bulk sizes, one per endpoint (the push pipeline's name). The store belongs to one
 * platform account (invariant 12), so a limit here is that account's. No row: nothing was refused.
 */
export class BulkLimitRepository {
  readonly #get: SqlStatement<[string], { size: number; learned_at: number }>;
  readonly #lower: SqlStatement<[string, number, number]>;
  readonly #set: SqlStatement<[string, number, number]>;
  readonly #clear: SqlStatement<[string]>;

  constructor(db: SqlDatabase) {
    this.#get = db.prepare('SELECT size, learned_at FROM bulk_limits WHERE endpoint = ?');
    // Concurrent refusals each lower it: the smallest wins, and every refusal restarts the wait.
    this.#lower = db.prepare(
      `INSERT INTO bulk_limits (endpoint, size, learned_at) VALUES (?, ?, ?)
       ON CONFLICT (endpoint) DO UPDATE SET
         size = ${db.dialect.least('bulk_limits.size', 'excluded.size')}, learned_at = excluded.learned_at`,
    );
    this.#set = db.prepare(
      `INSERT INTO bulk_limits (endpoint, size, learned_at) VALUES (?, ?, ?)
       ON CONFLICT (endpoint) DO UPDATE SET size = excluded.size, learned_at = excluded.learned_at`,
    );
    this.#clear = db.prepare('DELETE FROM bulk_limits WHERE endpoint = ?');
  }

  get(endpoint: string): BulkLimit | null {
    const row = this.#get.get(endpoint);
    return row ? { size: row.size, learnedAt: row.learned_at } : null;
  }

  /** The platform refused more than `size` items: keeps the smaller of this and the stored limit. */
  lower(endpoint: string, size: number, now: number): void {
    this.#lower.run(endpoint, size, now);
  }

  /** A probe of `size` items was taken: the limit is at least that. */
  raise(endpoint: string, size: number, now: number): void {
    this.#set.run(endpoint, size, now);
  }

  /** The configured size was taken again: nothing is limited any more. */
  clear(endpoint: string): void {
    this.#clear.run(endpoint);
  }
}
