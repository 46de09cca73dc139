import type { SqlDatabase, SqlStatement } from './sql/SqlDatabase.js';

/** See PRODUCTS_MIGRATION: pending and unknown creates are searched by SKU before any new POST. */
export type ProductCreateState = 'pending' | 'unknown' | 'rejected';

export interface ProductCreateRecord {
  sku: string;
  state: ProductCreateState;
  contentHash: string | null;
  attempts: number;
  lastError: string | null;
}

interface CreateRow {
  sku: string;
  state: string;
  content_hash: string | null;
  attempts: number;
  last_error: string | null;
}

const CHUNK = 500;

export class ProductCreateRepository {
  readonly #get: SqlStatement<[string], CreateRow>;
  readonly #getMany: SqlStatement<[string], CreateRow>;
  readonly #intent: SqlStatement<[string, string, string]>;
  readonly #attempt: SqlStatement<[string, string]>;
  readonly #setState: SqlStatement<[string, string | null, string, string]>;
  readonly #delete: SqlStatement<[string]>;
  readonly #count: SqlStatement<[], { n: number }>;

  constructor(db: SqlDatabase) {
    this.#get = db.prepare('SELECT * FROM product_creates WHERE sku = ?');
    this.#getMany = db.prepare(
      `SELECT c.* FROM ${db.dialect.list('k', 'text')} ${db.dialect.probe('product_creates', 'c', 'c.sku = k.value')}`,
    );
    // A refused create may be tried again with new content; a pending or unknown one keeps its
    // attempts (they say a POST may be out there).
    this.#intent = db.prepare(
      `INSERT INTO product_creates (sku, state, content_hash, attempts, updated_at) VALUES (?, 'pending', ?, 0, ?)
       ON CONFLICT (sku) DO UPDATE SET state = 'pending', content_hash = excluded.content_hash,
         last_error = NULL, updated_at = excluded.updated_at
       WHERE product_creates.state = 'rejected'`,
    );
    this.#attempt = db.prepare(
      'UPDATE product_creates SET attempts = attempts + 1, updated_at = ? WHERE sku = ?',
    );
    this.#setState = db.prepare(
      'UPDATE product_creates SET state = ?, last_error = ?, updated_at = ? WHERE sku = ?',
    );
    this.#delete = db.prepare('DELETE FROM product_creates WHERE sku = ?');
    this.#count = db.prepare("SELECT count(*) AS n FROM product_creates WHERE state != 'rejected'");
  }

  get(sku: string): ProductCreateRecord | undefined {
    const row = this.#get.get(sku);
    return row ? toRecord(row) : undefined;
  }

  getMany(skus: readonly string[]): Map<string, ProductCreateRecord> {
    const out = new Map<string, ProductCreateRecord>();
    for (let i = 0; i < skus.length; i += CHUNK) {
      for (const row of this.#getMany.all(JSON.stringify(skus.slice(i, i + CHUNK))))
        out.set(row.sku, toRecord(row));
    }
    return out;
  }

  /** Records the intent to create (before any POST); keeps a pending or unknown record as it is. */
  recordIntent(sku: string, contentHash: string): void {
    this.#intent.run(sku, contentHash, now());
  }

  /** Counted before the POST is sent: attempts > 0 means a product may exist. */
  countAttempt(sku: string): void {
    this.#attempt.run(now(), sku);
  }

  markUnknown(sku: string, error: string): void {
    this.#setState.run('unknown', error, now(), sku);
  }

  markRejected(sku: string, reason: string): void {
    this.#setState.run('rejected', reason, now(), sku);
  }

  /** The platform confirmed the product: the link takes over. */
  markCreated(sku: string): void {
    this.#delete.run(sku);
  }

  /** Creates that may have a product behind them (pending or unknown). */
  countOpen(): number {
    return this.#count.get()!.n;
  }
}

function now(): string {
  return new Date().toISOString();
}

function toRecord(row: CreateRow): ProductCreateRecord {
  return {
    sku: row.sku,
    state: row.state as ProductCreateState,
    contentHash: row.content_hash,
    attempts: row.attempts,
    lastError: row.last_error,
  };
}
