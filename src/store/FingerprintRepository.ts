import type { Database, Statement } from 'better-sqlite3';
import { chunks } from './chunks.js';

export type FingerprintPipeline = 'stock' | 'prices';

/** The last value the platform acknowledged for one item (key: itemKeyString()). */
export interface Fingerprint {
  key: string;
  hash: string;
  generation: number;
  ackedAt: string | null;
  /** The platform reported the item not_found: it is not pushed again until the catalog finds it. */
  missing: boolean;
}

export interface FingerprintEntry {
  key: string;
  hash: string;
  generation: number;
}

interface FingerprintRow {
  key: string;
  hash: string;
  generation: number;
  acked_at: string | null;
  missing: number;
}

const CHUNK = 500;

/**
 * Every write here carries a generation and loses to a row with a higher one: this is the
 * storage side of "a value read later is never overwritten by a value read earlier".
 */
export class FingerprintRepository {
  readonly #getMany: Statement<[string, string], FingerprintRow>;
  readonly #put: Statement<[string, string, string, number, string]>;
  readonly #markMissing: Statement<[string, string, number]>;
  readonly #markInFlight: Statement<[string, string, string, number]>;
  readonly #clearMissing: Statement<[string, string]>;
  readonly #isMissing: Statement<[string, string], { missing: number }>;
  readonly #delete: Statement<[string, string]>;
  readonly #clear: Statement<[string]>;
  readonly #count: Statement<[string], { n: number; missing: number | null }>;

  constructor(private readonly db: Database) {
    // json_each keeps one prepared statement for any chunk size; CROSS JOIN makes SQLite loop over
    // the keys and probe the primary key (a plain JOIN lets it scan the table once per key).
    this.#getMany = db.prepare(
      `SELECT f.key, f.hash, f.generation, f.acked_at, f.missing
       FROM json_each(?) AS k CROSS JOIN fingerprints AS f ON f.pipeline = ? AND f.key = k.value`,
    );
    this.#put = db.prepare(
      `INSERT INTO fingerprints (pipeline, key, hash, generation, acked_at, missing) VALUES (?, ?, ?, ?, ?, 0)
       ON CONFLICT (pipeline, key) DO UPDATE SET
         hash = excluded.hash, generation = excluded.generation, acked_at = excluded.acked_at, missing = 0
       WHERE excluded.generation >= fingerprints.generation`,
    );
    // Not acknowledged: acked_at NULL; a later scan's row (higher generation) is kept.
    this.#markInFlight = db.prepare(
      `INSERT INTO fingerprints (pipeline, key, hash, generation, acked_at, missing) VALUES (?, ?, ?, ?, NULL, 0)
       ON CONFLICT (pipeline, key) DO UPDATE SET
         hash = excluded.hash, generation = excluded.generation, acked_at = NULL, missing = 0
       WHERE excluded.generation >= fingerprints.generation`,
    );
    // A missing item keeps no hash worth matching: '' never equals a real fingerprint.
    this.#markMissing = db.prepare(
      `INSERT INTO fingerprints (pipeline, key, hash, generation, acked_at, missing) VALUES (?, ?, '', ?, NULL, 1)
       ON CONFLICT (pipeline, key) DO UPDATE SET missing = 1, hash = '', generation = excluded.generation
       WHERE excluded.generation >= fingerprints.generation`,
    );
    this.#clearMissing = db.prepare(
      `UPDATE fingerprints SET missing = 0, hash = '' WHERE pipeline = ? AND key = ? AND missing = 1`,
    );
    this.#isMissing = db.prepare('SELECT missing FROM fingerprints WHERE pipeline = ? AND key = ?');
    this.#delete = db.prepare('DELETE FROM fingerprints WHERE pipeline = ? AND key = ?');
    this.#clear = db.prepare('DELETE FROM fingerprints WHERE pipeline = ?');
    this.#count = db.prepare(
      `SELECT count(*) AS n, sum(missing) AS missing FROM fingerprints
       WHERE pipeline = ? AND (acked_at IS NOT NULL OR missing = 1)`,
    );
  }

  getMany(pipeline: FingerprintPipeline, keys: readonly string[]): Map<string, Fingerprint> {
    const out = new Map<string, Fingerprint>();
    for (const part of chunks(keys, CHUNK)) {
      for (const row of this.#getMany.iterate(JSON.stringify(part), pipeline)) {
        out.set(row.key, {
          key: row.key,
          hash: row.hash,
          generation: row.generation,
          ackedAt: row.acked_at,
          missing: row.missing === 1,
        });
      }
    }
    return out;
  }

  /** Records acknowledged values in one transaction; a row with a higher generation is kept. */
  putMany(pipeline: FingerprintPipeline, entries: Iterable<FingerprintEntry>): void {
    const ackedAt = new Date().toISOString();
    this.db.transaction(() => {
      for (const e of entries) this.#put.run(pipeline, e.key, e.hash, e.generation, ackedAt);
    })();
  }

  /**
   * Replaces what is known about these items by a value that is not acknowledged (the caller's
   * `hash` is an in-flight marker that equals no value), in one transaction; a row with a higher
   * generation is kept. Returns the keys it marked: the others belong to a later generation.
   */
  markUnconfirmed(pipeline: FingerprintPipeline, entries: Iterable<FingerprintEntry>): Set<string> {
    const marked = new Set<string>();
    this.db.transaction(() => {
      for (const e of entries) {
        if (this.#markInFlight.run(pipeline, e.key, e.hash, e.generation).changes > 0) marked.add(e.key);
      }
    })();
    return marked;
  }

  delete(pipeline: FingerprintPipeline, keys: Iterable<string>): void {
    this.db.transaction(() => {
      for (const key of keys) this.#delete.run(pipeline, key);
    })();
  }

  clear(pipeline: FingerprintPipeline): void {
    this.#clear.run(pipeline);
  }

  /** Remembers items the platform reported not_found (unless a later generation was acknowledged). */
  markMissing(pipeline: FingerprintPipeline, keys: Iterable<string>, generation: number): void {
    this.db.transaction(() => {
      for (const key of keys) this.#markMissing.run(pipeline, key, generation);
    })();
  }

  /** The items exist on the platform now: their next scan pushes them (the empty hash matches nothing). */
  clearMissing(pipeline: FingerprintPipeline, keys: Iterable<string>): void {
    this.db.transaction(() => {
      for (const key of keys) this.#clearMissing.run(pipeline, key);
    })();
  }

  isMissing(pipeline: FingerprintPipeline, key: string): boolean {
    return this.#isMissing.get(pipeline, key)?.missing === 1;
  }

  /** Items whose state is known: acknowledged values and not-found marks (not values in flight). */
  count(pipeline: FingerprintPipeline): { total: number; missing: number } {
    const row = this.#count.get(pipeline)!;
    return { total: row.n, missing: row.missing ?? 0 };
  }
}
