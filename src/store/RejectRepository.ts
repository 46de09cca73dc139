import type { SqlDatabase, SqlStatement } from './sql/SqlDatabase.js';
import type { RecordSource, Reject } from '../domain/records.js';

/** A reject as the store keeps it: how often and since when it was seen, and whether it is resolved. */
export interface StoredReject {
  pipeline: string;
  key: string;
  reason: string;
  source: RecordSource | null;
  firstSeen: string;
  lastSeen: string;
  count: number;
  resolvedAt: string | null;
}

interface RejectRow {
  pipeline: string;
  key: string;
  reason: string;
  source_file: string | null;
  source_line: number | null;
  source_row: string | null;
  first_seen: string;
  last_seen: string;
  count: number;
  resolved_at: string | null;
}

export interface RejectListOptions {
  pipeline?: string;
  /** Only this SKU and its variants (keys `SKU` and `SKU/...`); for orders, the order id. */
  sku?: string;
  includeResolved?: boolean;
  limit?: number;
  /** Skips this many of the newest first (a page of the console). */
  offset?: number;
}

/** The filter of list() and countOpen(): null matches everything. */
interface Filter {
  pipeline: string | null;
  sku: string | null;
  variants: string | null;
}

const ITEM_FILTER =
  '(CAST(@sku AS TEXT) IS NULL OR key = @sku OR (substr(key, 1, length(@sku) + 1) = @variants))';

function filterOf(pipeline: string | undefined, sku: string | undefined): Filter {
  return { pipeline: pipeline ?? null, sku: sku ?? null, variants: sku === undefined ? null : `${sku}/` };
}

export class RejectRepository {
  readonly #record: SqlStatement<
    [string, string, string, string | null, number | null, string | null, string, string]
  >;
  readonly #resolve: SqlStatement<[string, string, string]>;
  readonly #resolveAllExcept: SqlStatement<[string, string, string]>;
  readonly #list: SqlStatement<[Filter & { all: number; limit: number | null; offset: number }], RejectRow>;
  readonly #openAmong: SqlStatement<[string, string], { key: string }>;
  readonly #countOpen: SqlStatement<[Filter], { n: number }>;
  readonly #countOpenByPipeline: SqlStatement<[], { pipeline: string; n: number }>;

  constructor(private readonly db: SqlDatabase) {
    // Seen again: count it, keep first_seen, and reopen it if it had been resolved.
    this.#record = db.prepare(
      `INSERT INTO rejects (pipeline, key, reason, source_file, source_line, source_row, first_seen, last_seen, count)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1)
       ON CONFLICT (pipeline, key, reason) DO UPDATE SET
         count = rejects.count + 1,
         last_seen = excluded.last_seen,
         source_file = excluded.source_file,
         source_line = excluded.source_line,
         source_row = excluded.source_row,
         resolved_at = NULL`,
    );
    this.#resolve = db.prepare(
      'UPDATE rejects SET resolved_at = ? WHERE pipeline = ? AND key = ? AND resolved_at IS NULL',
    );
    this.#resolveAllExcept = db.prepare(
      `UPDATE rejects SET resolved_at = ?
       WHERE pipeline = ? AND resolved_at IS NULL AND key NOT IN (SELECT k.value FROM ${db.dialect.list('k', 'text')})`,
    );
    this.#openAmong = db.prepare(
      `SELECT DISTINCT r.key FROM ${db.dialect.list('k', 'text')}
       ${db.dialect.probe('rejects', 'r', 'r.pipeline = ? AND r.key = k.value AND r.resolved_at IS NULL')}`,
    );
    this.#list = db.prepare(
      `SELECT * FROM rejects
       WHERE (CAST(@pipeline AS TEXT) IS NULL OR pipeline = @pipeline) AND (@all = 1 OR resolved_at IS NULL) AND ${ITEM_FILTER}
       ORDER BY last_seen DESC, pipeline, key LIMIT @limit OFFSET @offset`,
    );
    this.#countOpen = db.prepare(
      `SELECT count(*) AS n FROM rejects
       WHERE resolved_at IS NULL AND (CAST(@pipeline AS TEXT) IS NULL OR pipeline = @pipeline) AND ${ITEM_FILTER}`,
    );
    this.#countOpenByPipeline = db.prepare(
      'SELECT pipeline, count(*) AS n FROM rejects WHERE resolved_at IS NULL GROUP BY pipeline',
    );
  }

  record(reject: Reject): void {
    const now = new Date().toISOString();
    const s = reject.source;
    this.#record.run(
      reject.pipeline,
      reject.key,
      reject.reason,
      s?.file ?? null,
      s?.line ?? null,
      s?.row ?? null,
      now,
      now,
    );
  }

  recordMany(rejects: Iterable<Reject>): void {
    this.db.transaction(() => {
      for (const reject of rejects) this.record(reject);
    });
  }

  /** Marks every open reject of the key resolved (the item went through). */
  resolve(pipeline: string, key: string): void {
    this.#resolve.run(new Date().toISOString(), pipeline, key);
  }

  resolveMany(pipeline: string, keys: Iterable<string>): void {
    const now = new Date().toISOString();
    this.db.transaction(() => {
      for (const key of keys) this.#resolve.run(now, pipeline, key);
    });
  }

  /** Which of these keys have an open reject in the pipeline: one statement for many. */
  openAmong(pipeline: string, keys: readonly string[]): Set<string> {
    if (keys.length === 0) return new Set();
    return new Set(this.#openAmong.all(JSON.stringify(keys), pipeline).map((row) => row.key));
  }

  /** After a full scan: every open reject whose key was not rejected again is resolved. */
  resolveAllExcept(pipeline: string, keys: Iterable<string>): number {
    return this.#resolveAllExcept.run(new Date().toISOString(), pipeline, JSON.stringify([...keys])).changes;
  }

  /**
   * The newest rejects (at most `limit`), listed in reading order: by pipeline, then file and line,
   * then key, numbers compared as numbers (stock.csv:2 before stock.csv:10, order 9 before 10).
   */
  list(options: RejectListOptions = {}): StoredReject[] {
    const rows = this.#list.all({
      ...filterOf(options.pipeline, options.sku),
      all: options.includeResolved ? 1 : 0,
      limit: options.limit ?? this.db.dialect.noLimit,
      offset: options.offset ?? 0,
    });
    return rows.sort(readingOrder).map(toStored);
  }

  /** Open rejects, of one pipeline and of one SKU (and its variants) when given. */
  countOpen(pipeline?: string, sku?: string): number {
    return this.#countOpen.get(filterOf(pipeline, sku))!.n;
  }

  /** Open rejects per pipeline; a pipeline without any is absent. */
  countOpenByPipeline(): Map<string, number> {
    return new Map(this.#countOpenByPipeline.all().map((row) => [row.pipeline, row.n]));
  }
}

// Built at the first sort, not at import: a collator loads ICU's data, 6 ms CPU that status and
// check (which open the store but sort no rejects) would pay at every start.
let naturalCompare: ((a: string, b: string) => number) | undefined;

function natural(a: string, b: string): number {
  naturalCompare ??= new Intl.Collator('en', { numeric: true }).compare;
  return naturalCompare(a, b);
}

function readingOrder(a: RejectRow, b: RejectRow): number {
  return (
    natural(a.pipeline, b.pipeline) ||
    natural(a.source_file ?? '', b.source_file ?? '') ||
    (a.source_line ?? 0) - (b.source_line ?? 0) ||
    natural(a.key, b.key) ||
    natural(a.reason, b.reason)
  );
}

function toStored(row: RejectRow): StoredReject {
  const source: RecordSource = {};
  if (row.source_file !== null) source.file = row.source_file;
  if (row.source_line !== null) source.line = row.source_line;
  if (row.source_row !== null) source.row = row.source_row;
  return {
    pipeline: row.pipeline,
    key: row.key,
    reason: row.reason,
    source: Object.keys(source).length ? source : null,
    firstSeen: row.first_seen,
    lastSeen: row.last_seen,
    count: row.count,
    resolvedAt: row.resolved_at,
  };
}
