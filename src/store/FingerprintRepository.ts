import type { SqlDatabase, SqlStatement } from './sql/SqlDatabase.js';
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

const CHUNK = 500;
/** Rows per bulk statement: a push batch (at most 1000 items) is one. */
const BULK_CHUNK = 1000;

/** Entries as JSON arrays of [key, hash, generation], at most BULK_CHUNK a piece. */
function* entryChunks(entries: Iterable<FingerprintEntry>): Generator<string> {
  let rows: [string, string, number][] = [];
  for (const e of entries) {
    rows.push([e.key, e.hash, e.generation]);
    if (rows.length === BULK_CHUNK) {
      yield JSON.stringify(rows);
      rows = [];
    }
  }
  if (rows.length) yield JSON.stringify(rows);
}

/**
 * Every write here carries a generation and loses to a row with a higher one: this is the
 * storage side of "a value read later is never overwritten by a value read earlier".
 */
export class FingerprintRepository {
  readonly #getMany: SqlStatement<[string, string], [string, string, number, string | null, number]>;
  readonly #put: SqlStatement<[string, string, string]>;
  readonly #markMissing: SqlStatement<[string, number, string]>;
  readonly #markInFlight: SqlStatement<[string, string], string>;
  readonly #clearMissing: SqlStatement<[string, string]>;
  readonly #isMissing: SqlStatement<[string, string], { missing: number }>;
  readonly #delete: SqlStatement<[string, string]>;
  readonly #clear: SqlStatement<[string]>;
  readonly #count: SqlStatement<[string], { n: number; missing: number | null }>;

  // The bulk statements take their rows as one JSON array (json_each): one statement per batch
  // whatever its size, where a statement per item cost about 0.4 s of CPU per 100k items.
  constructor(private readonly db: SqlDatabase) {
    const d = db.dialect;
    const row = `${d.field('e', 0, 'text')}, ${d.field('e', 1, 'text')}, ${d.field('e', 2, 'integer')}`;
    // CROSS JOIN makes SQLite loop over the keys and probe the primary key (a plain JOIN lets it
    // scan the table once per key). Raw rows: no object per row on the scan's path.
    this.#getMany = db
      .prepare<[string, string], [string, string, number, string | null, number]>(
        `SELECT f.key, f.hash, f.generation, f.acked_at, f.missing
         FROM ${d.list('k', 'text')} ${d.probe('fingerprints', 'f', 'f.pipeline = ? AND f.key = k.value')}`,
      )
      .raw();
    // Rows: [key, hash, generation]. `WHERE true` parts the SELECT from the upsert clause.
    // Parameters bind in the order they appear (better-sqlite3 takes no ?NNN positions).
    this.#put = db.prepare(
      `INSERT INTO fingerprints (pipeline, key, hash, generation, acked_at, missing)
       SELECT ?, ${row}, ?, 0 FROM ${d.rows('e')} WHERE true
       ON CONFLICT (pipeline, key) DO UPDATE SET
         hash = excluded.hash, generation = excluded.generation, acked_at = excluded.acked_at, missing = 0
       WHERE excluded.generation >= fingerprints.generation`,
    );
    // Not acknowledged: acked_at NULL; a later scan's row (higher generation) is kept, and only the
    // rows written come back.
    this.#markInFlight = db
      .prepare<[string, string], string>(
        `INSERT INTO fingerprints (pipeline, key, hash, generation, acked_at, missing)
         SELECT ?, ${row}, NULL, 0 FROM ${d.rows('e')} WHERE true
         ON CONFLICT (pipeline, key) DO UPDATE SET
           hash = excluded.hash, generation = excluded.generation, acked_at = NULL, missing = 0
         WHERE excluded.generation >= fingerprints.generation
         RETURNING key`,
      )
      .pluck();
    // A missing item keeps no hash worth matching: '' never equals a real fingerprint.
    this.#markMissing = db.prepare(
      `INSERT INTO fingerprints (pipeline, key, hash, generation, acked_at, missing)
       SELECT ?, k.value, '', CAST(? AS BIGINT), NULL, 1 FROM ${d.list('k', 'text')} WHERE true
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
      for (const [key, hash, generation, ackedAt, missing] of this.#getMany.all(
        JSON.stringify(part),
        pipeline,
      )) {
        out.set(key, { key, hash, generation, ackedAt, missing: missing === 1 });
      }
    }
    return out;
  }

  /** Records acknowledged values in one transaction; a row with a higher generation is kept. */
  putMany(pipeline: FingerprintPipeline, entries: Iterable<FingerprintEntry>): void {
    const ackedAt = new Date().toISOString();
    this.db.transaction(() => {
      for (const part of entryChunks(entries)) this.#put.run(pipeline, ackedAt, part);
    });
  }

  /**
   * Replaces what is known about these items by a value that is not acknowledged (the caller's
   * `hash` is an in-flight marker that equals no value), in one transaction; a row with a higher
   * generation is kept. Returns the keys it marked: the others belong to a later generation.
   */
  markUnconfirmed(pipeline: FingerprintPipeline, entries: Iterable<FingerprintEntry>): Set<string> {
    const marked = new Set<string>();
    this.db.transaction(() => {
      for (const part of entryChunks(entries))
        for (const key of this.#markInFlight.all(pipeline, part)) marked.add(key);
    });
    return marked;
  }

  delete(pipeline: FingerprintPipeline, keys: Iterable<string>): void {
    this.db.transaction(() => {
      for (const key of keys) this.#delete.run(pipeline, key);
    });
  }

  clear(pipeline: FingerprintPipeline): void {
    this.#clear.run(pipeline);
  }

  /** Remembers items the platform reported not_found (unless a later generation was acknowledged). */
  markMissing(pipeline: FingerprintPipeline, keys: Iterable<string>, generation: number): void {
    this.db.transaction(() => {
      for (const part of chunks([...keys], BULK_CHUNK))
        this.#markMissing.run(pipeline, generation, JSON.stringify(part));
    });
  }

  /** The items exist on the platform now: their next scan pushes them (the empty hash matches nothing). */
  clearMissing(pipeline: FingerprintPipeline, keys: Iterable<string>): void {
    this.db.transaction(() => {
      for (const key of keys) this.#clearMissing.run(pipeline, key);
    });
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
