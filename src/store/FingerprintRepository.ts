import type { SqlDatabase, SqlStatement } from './sql/SqlDatabase.js';
import { chunks } from './chunks.js';
import { PairsStatement } from './PairsStatement.js';

export type FingerprintPipeline = 'stock' | 'prices';

/**
 * A fingerprint row keeps its pipeline as a number (migration 73: a narrower row, written once
 * per item a push); inflight_batches and the other tables keep the name.
 */
const PIPELINE_CODES: Readonly<Record<FingerprintPipeline, number>> = { stock: 1, prices: 2 };

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

/** One item of a batch going in flight: its key and its in-flight marker (the row's JSON as is). */
export type InFlightEntry = readonly [key: string, marker: string];

/** What `markInFlight` did: the batch's row (null: nothing was fresh) and the keys it left out. */
export interface InFlightMark {
  id: number | null;
  /** Keys a later generation holds (acknowledged, or in a later batch in flight): not to be sent. */
  superseded: Set<string>;
}

/** A batch in flight as a reader sees it: its items' markers by key. */
interface OpenBatch {
  pipeline: FingerprintPipeline;
  generation: number;
  markers: Map<string, string>;
}

/** No generation is this high: "every batch in flight". */
const ALL_GENERATIONS = Number.MAX_SAFE_INTEGER;

const CHUNK = 500;
/** Rows per bulk statement: a push batch (at most 1000 items) is one. */
const BULK_CHUNK = 1000;

/**
 * What the scan's read returns for a key known missing on the platform: no fingerprint is a
 * control character (a key with no row reads as NULL).
 */
const MISSING_READ = '\u0001';

/**
 * Every write here carries a generation and loses to a row with a higher one: this is the
 * storage side of "a value read later is never overwritten by a value read earlier".
 *
 * A push batch in flight is one row of `inflight_batches` (its keys and in-flight markers), not a
 * write per item: a key of an open batch reads as that batch's marker (not acknowledged) while no
 * fingerprint of a later generation holds it. So the acknowledgement is the only write per item.
 * Fingerprint rows that hold a marker themselves (acked_at NULL), written before batches had
 * rows, read as they did.
 */
export class FingerprintRepository {
  readonly #getMany: SqlStatement<[string, number], [string, string, number, number | null, number]>;
  readonly #hashes: SqlStatement<[string, string, number], string | null>;
  readonly #put: PairsStatement;
  readonly #markMissing: SqlStatement<[number, number, string]>;
  readonly #clearMissing: SqlStatement<[number, string]>;
  readonly #isMissing: SqlStatement<[number, string], { missing: number }>;
  readonly #delete: SqlStatement<[number, string]>;
  readonly #clear: SqlStatement<[number]>;
  readonly #count: SqlStatement<[number], { n: number; missing: number | null }>;
  readonly #latestGeneration: SqlStatement<[string], number>;
  readonly #newerKeys: SqlStatement<[string, number, number], string>;
  readonly #newerBatches: SqlStatement<[string, number], string>;
  readonly #insertBatch: SqlStatement<[string, number, string, string], number>;
  readonly #deleteBatch: SqlStatement<[number]>;
  readonly #clearBatches: SqlStatement<[string]>;
  readonly #openIds: SqlStatement<[string, number], number>;
  readonly #batch: SqlStatement<[number], { generation: number; items: string }>;
  /** Open batches' items by id, parsed once (ids are never reused); checked against the table on every read. */
  readonly #open = new Map<number, OpenBatch>();

  // The bulk statements take their rows as one JSON parameter (json_each): one statement per batch
  // whatever its size, where a statement per item cost about 0.4 s of CPU per 100k items.
  constructor(private readonly db: SqlDatabase) {
    const d = db.dialect;
    // CROSS JOIN makes SQLite loop over the keys and probe the primary key (a plain JOIN lets it
    // scan the table once per key). Raw rows: no object per row on the scan's path.
    this.#getMany = db
      .prepare<[string, number], [string, string, number, number | null, number]>(
        `SELECT f.key, f.hash, f.generation, f.acked_at, f.missing
         FROM ${d.list('k', 'text')} ${d.probe('fingerprints', 'f', 'f.pipeline = ? AND f.key = k.value')}`,
      )
      .raw();
    // The scan's read: one value per key, in the keys' order (no key strings, no array per row:
    // a fifth of the read's CPU), NULL for a key with no row.
    this.#hashes = db
      .prepare<[string, string, number], string | null>(
        `SELECT CASE WHEN f.missing = 1 THEN CAST(? AS TEXT) ELSE f.hash END
         FROM ${d.orderedList('k')} ${d.probeOrNull('fingerprints', 'f', 'f.pipeline = ? AND f.key = k.value')}
         ORDER BY k.position`,
      )
      .pluck();
    // Pairs key -> hash, all of one generation. `WHERE true` parts the SELECT from the upsert clause.
    // acked_at: ms since the epoch.
    this.#put = new PairsStatement(
      db,
      'e',
      (pairs) =>
        `INSERT INTO fingerprints (pipeline, key, hash, generation, acked_at, missing)
         SELECT CAST(? AS BIGINT), e.key, e.value, CAST(? AS BIGINT), CAST(? AS BIGINT), 0 FROM ${pairs} WHERE true
         ON CONFLICT (pipeline, key) DO UPDATE SET
           hash = excluded.hash, generation = excluded.generation, acked_at = excluded.acked_at, missing = 0
         WHERE excluded.generation >= fingerprints.generation`,
    );
    // A missing item keeps no hash worth matching: '' never equals a real fingerprint.
    this.#markMissing = db.prepare(
      `INSERT INTO fingerprints (pipeline, key, hash, generation, acked_at, missing)
       SELECT CAST(? AS BIGINT), k.value, '', CAST(? AS BIGINT), CAST(NULL AS BIGINT), 1 FROM ${d.list('k', 'text')} WHERE true
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
    // Every generation is handed out by the generations counter (named after the pipeline).
    this.#latestGeneration = db
      .prepare<[string], number>('SELECT value FROM generations WHERE name = ?')
      .pluck();
    this.#newerKeys = db
      .prepare<[string, number, number], string>(
        `SELECT f.key FROM ${d.list('k', 'text')} ${d.probe('fingerprints', 'f', 'f.pipeline = ? AND f.key = k.value')}
         WHERE f.generation > CAST(? AS BIGINT)`,
      )
      .pluck();
    this.#newerBatches = db
      .prepare<[string, number], string>(
        'SELECT items FROM inflight_batches WHERE pipeline = ? AND generation > CAST(? AS BIGINT)',
      )
      .pluck();
    this.#insertBatch = db
      .prepare<[string, number, string, string], number>(
        'INSERT INTO inflight_batches (pipeline, generation, items, marked_at) VALUES (?, ?, ?, ?) RETURNING id',
      )
      .pluck();
    this.#deleteBatch = db.prepare('DELETE FROM inflight_batches WHERE id = ?');
    this.#clearBatches = db.prepare('DELETE FROM inflight_batches WHERE pipeline = ?');
    this.#openIds = db
      .prepare<[string, number], number>(
        'SELECT id FROM inflight_batches WHERE pipeline = ? AND generation < CAST(? AS BIGINT)',
      )
      .pluck();
    this.#batch = db.prepare('SELECT generation, items FROM inflight_batches WHERE id = ?');
  }

  /**
   * What is known of these keys: the stored fingerprints, with the keys of batches in flight as
   * their markers. `before`: only batches of earlier generations count (a scan's diff: its own
   * batches hold none of the keys it has still to read).
   */
  getMany(
    pipeline: FingerprintPipeline,
    keys: readonly string[],
    options: { before?: number } = {},
  ): Map<string, Fingerprint> {
    const out = this.#stored(pipeline, keys);
    const open = this.#openBatches(pipeline, options.before ?? ALL_GENERATIONS);
    if (open.length === 0) return out;
    for (const key of keys) {
      const marker = inFlightMarker(open, key, out.get(key));
      if (marker) out.set(key, { key, ...marker, ackedAt: null, missing: false });
    }
    return out;
  }

  /**
   * What a scan's diff needs of these keys, as getMany sees them, in the keys' order: the hash at
   * each key's index, null for an item known missing on the platform, undefined for a key with no
   * fingerprint. An array, not a Map: the diff walks the keys in this order anyway.
   */
  hashes(
    pipeline: FingerprintPipeline,
    keys: readonly string[],
    options: { before?: number } = {},
  ): (string | null | undefined)[] {
    const out = new Array<string | null | undefined>(keys.length);
    if (this.#openBatches(pipeline, options.before ?? ALL_GENERATIONS).length) {
      const known = this.getMany(pipeline, keys, options);
      for (let at = 0; at < keys.length; at++) {
        const fingerprint = known.get(keys[at]!);
        out[at] = fingerprint && (fingerprint.missing ? null : fingerprint.hash);
      }
      return out;
    }
    const code = PIPELINE_CODES[pipeline];
    for (let from = 0; from < keys.length; from += BULK_CHUNK) {
      const part = keys.slice(from, from + BULK_CHUNK);
      const hashes = this.#hashes.all(MISSING_READ, JSON.stringify(part), code);
      for (let at = 0; at < part.length; at++) {
        const hash = hashes[at];
        out[from + at] =
          hash === null || hash === undefined ? undefined : hash === MISSING_READ ? null : hash;
      }
    }
    return out;
  }

  #stored(pipeline: FingerprintPipeline, keys: readonly string[]): Map<string, Fingerprint> {
    const out = new Map<string, Fingerprint>();
    for (const part of chunks(keys, CHUNK)) {
      for (const [key, hash, generation, ackedAt, missing] of this.#getMany.all(
        JSON.stringify(part),
        PIPELINE_CODES[pipeline],
      )) {
        out.set(key, {
          key,
          hash,
          generation,
          ackedAt: ackedAt === null ? null : new Date(Number(ackedAt)).toISOString(),
          missing: missing === 1,
        });
      }
    }
    return out;
  }

  /**
   * Records acknowledged values in one transaction; a row with a higher generation is kept, and of
   * a key given twice the last entry. One statement per run of entries of one generation (a push
   * batch is one), in the entries' order.
   */
  putMany(pipeline: FingerprintPipeline, entries: readonly FingerprintEntry[]): void {
    if (entries.length === 0) return;
    const ackedAt = Date.now();
    const code = PIPELINE_CODES[pipeline];
    this.db.transaction(() => {
      // Indexed: a run calls this a hundred times, too few for V8 to optimise a for...of.
      for (let from = 0; from < entries.length;) {
        const { generation } = entries[from]!;
        let to = from + 1;
        while (to < entries.length && entries[to]!.generation === generation) to++;
        this.#put.run([code, generation, ackedAt], entries, from, to);
        from = to;
      }
    });
  }

  /**
   * Puts one push batch in flight, in one transaction: its items ([key, in-flight marker]) that
   * no later generation holds become one row; the others come back as superseded. While no later
   * scan has begun (the generations counter is at this one), no key can be held by a later
   * generation and nothing is read. `settle` ends the row when the answer is recorded.
   * `first` runs at the start of the transaction (the caller's lease renewal: its fence and the
   * mark commit together); if it throws, nothing is marked.
   */
  markInFlight(
    pipeline: FingerprintPipeline,
    generation: number,
    entries: readonly InFlightEntry[],
    options: { first?: () => void } = {},
  ): InFlightMark {
    return this.db.transaction(() => {
      options.first?.();
      const superseded = new Set<string>();
      if (Number(this.#latestGeneration.get(pipeline) ?? 0) > generation) {
        const keys = entries.map(([key]) => key);
        for (const part of chunks(keys, BULK_CHUNK))
          for (const key of this.#newerKeys.all(JSON.stringify(part), PIPELINE_CODES[pipeline], generation))
            superseded.add(key);
        const wanted = new Set(keys);
        for (const items of this.#newerBatches.all(pipeline, generation))
          for (const [key] of JSON.parse(items) as [string, string][])
            if (wanted.has(key)) superseded.add(key);
      }
      // The entries are the row's items as they are: nothing is copied unless some are superseded.
      const fresh = superseded.size ? entries.filter(([key]) => !superseded.has(key)) : entries;
      if (fresh.length === 0) return { id: null, superseded };
      const id = this.#insertBatch.get(
        pipeline,
        generation,
        JSON.stringify(fresh),
        new Date().toISOString(),
      )!;
      return { id: Number(id), superseded };
    });
  }

  /** The batch's answer is recorded (in the caller's transaction): its keys are no longer in flight. */
  settle(id: number): void {
    this.#deleteBatch.run(id);
    this.#open.delete(id);
  }

  /**
   * Batches in flight of this pipeline below `before`, from the cache, which follows the table:
   * a batch gone from it (settled, here or by another process) leaves the cache too.
   */
  #openBatches(pipeline: FingerprintPipeline, before: number): OpenBatch[] {
    return [...this.#openById(pipeline, before).values()];
  }

  #openById(pipeline: FingerprintPipeline, before: number): Map<number, OpenBatch> {
    const ids = this.#openIds.all(pipeline, before).map(Number);
    const present = new Set(ids);
    for (const [id, batch] of this.#open)
      if (batch.pipeline === pipeline && batch.generation < before && !present.has(id)) this.#open.delete(id);
    const open = new Map<number, OpenBatch>();
    for (const id of ids) {
      let batch = this.#open.get(id);
      if (!batch) {
        const row = this.#batch.get(id);
        if (!row) continue;
        const items = JSON.parse(row.items) as [string, string][];
        batch = { pipeline, generation: Number(row.generation), markers: new Map(items) };
        this.#open.set(id, batch);
      }
      open.set(id, batch);
    }
    return open;
  }

  /**
   * Ends the rows of batches whose every key is settled since (`answers`): their answers were
   * lost and their items sent again and answered, by a retry of the batch or a later scan, so they
   * hold nothing in flight any more. Returns how many ended.
   */
  pruneInFlight(pipeline: FingerprintPipeline): number {
    let ended = 0;
    for (const [id, batch] of this.#openById(pipeline, ALL_GENERATIONS)) {
      const stored = this.#stored(pipeline, [...batch.markers.keys()]);
      const held = [...batch.markers.keys()].every((key) => answers(stored.get(key), batch.generation));
      if (!held) continue;
      this.settle(id);
      ended += 1;
    }
    return ended;
  }

  delete(pipeline: FingerprintPipeline, keys: Iterable<string>): void {
    this.db.transaction(() => {
      for (const key of keys) this.#delete.run(PIPELINE_CODES[pipeline], key);
    });
  }

  clear(pipeline: FingerprintPipeline): void {
    this.db.transaction(() => {
      this.#clear.run(PIPELINE_CODES[pipeline]);
      this.#clearBatches.run(pipeline);
    });
  }

  /** Remembers items the platform reported not_found (unless a later generation was acknowledged). */
  markMissing(pipeline: FingerprintPipeline, keys: Iterable<string>, generation: number): void {
    this.db.transaction(() => {
      for (const part of chunks([...keys], BULK_CHUNK))
        this.#markMissing.run(PIPELINE_CODES[pipeline], generation, JSON.stringify(part));
    });
  }

  /** The items exist on the platform now: their next scan pushes them (the empty hash matches nothing). */
  clearMissing(pipeline: FingerprintPipeline, keys: Iterable<string>): void {
    this.db.transaction(() => {
      for (const key of keys) this.#clearMissing.run(PIPELINE_CODES[pipeline], key);
    });
  }

  isMissing(pipeline: FingerprintPipeline, key: string): boolean {
    return this.#isMissing.get(PIPELINE_CODES[pipeline], key)?.missing === 1;
  }

  /** Items whose state is known: acknowledged values and not-found marks (not values in flight). */
  count(pipeline: FingerprintPipeline): { total: number; missing: number } {
    const row = this.#count.get(PIPELINE_CODES[pipeline])!;
    let total = row.n;
    let missing = row.missing ?? 0;
    const open = this.#openBatches(pipeline, ALL_GENERATIONS);
    if (open.length === 0) return { total, missing };
    // A stored value or mark that a batch in flight covers is not known now.
    const keys = [...new Set(open.flatMap((batch) => [...batch.markers.keys()]))];
    for (const [key, stored] of this.#stored(pipeline, keys)) {
      if (!inFlightMarker(open, key, stored) || (stored.ackedAt === null && !stored.missing)) continue;
      total -= 1;
      if (stored.missing) missing -= 1;
    }
    return { total, missing };
  }
}

/** The marker of the latest open batch holding the key, unless a stored row settles it (`answers`). */
function inFlightMarker(
  open: readonly OpenBatch[],
  key: string,
  stored: Fingerprint | undefined,
): { hash: string; generation: number } | null {
  let found: { hash: string; generation: number } | null = null;
  for (const batch of open) {
    const hash = batch.markers.get(key);
    if (hash !== undefined && (!found || batch.generation > found.generation))
      found = { hash, generation: batch.generation };
  }
  if (!found || answers(stored, found.generation)) return null;
  return found;
}

/**
 * The stored row settles a batch of this generation for its key: a later generation's row, or an
 * answer (acknowledged or not found) of the same generation, that is of the same read value, which
 * a retry of the batch whose first answer was lost (a transient failure, the process killed) got.
 */
function answers(stored: Fingerprint | undefined, generation: number): boolean {
  if (!stored) return false;
  return (
    stored.generation > generation ||
    (stored.generation === generation && (stored.ackedAt !== null || stored.missing))
  );
}
