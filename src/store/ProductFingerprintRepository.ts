import type { SqlDatabase, SqlStatement } from './sql/SqlDatabase.js';

/** Field (spec name) -> fingerprint of the value the platform acknowledged. */
export type FieldFingerprints = Record<string, string>;

const CHUNK = 500;

/**
 * The products pipeline's fingerprints, one row per SKU holding one fingerprint per field.
 * A field being sent is removed before the request (in flight): if the answer is lost, the
 * field is unknown and sent again next run, whatever the ERP says then.
 */
export class ProductFingerprintRepository {
  readonly #getMany: SqlStatement<[string], { sku: string; fields: string }>;
  readonly #put: SqlStatement<[string, string, string]>;
  readonly #delete: SqlStatement<[string]>;

  constructor(private readonly db: SqlDatabase) {
    this.#getMany = db.prepare(
      `SELECT f.sku, f.fields FROM ${db.dialect.list('k', 'text')}
       ${db.dialect.probe('product_fingerprints', 'f', 'f.sku = k.value')}`,
    );
    this.#put = db.prepare(
      `INSERT INTO product_fingerprints (sku, fields, acked_at) VALUES (?, ?, ?)
       ON CONFLICT (sku) DO UPDATE SET fields = excluded.fields, acked_at = excluded.acked_at`,
    );
    this.#delete = db.prepare('DELETE FROM product_fingerprints WHERE sku = ?');
  }

  getMany(skus: readonly string[]): Map<string, FieldFingerprints> {
    const out = new Map<string, FieldFingerprints>();
    for (let i = 0; i < skus.length; i += CHUNK) {
      for (const row of this.#getMany.all(JSON.stringify(skus.slice(i, i + CHUNK))))
        out.set(row.sku, JSON.parse(row.fields) as FieldFingerprints);
    }
    return out;
  }

  get(sku: string): FieldFingerprints | undefined {
    return this.getMany([sku]).get(sku);
  }

  /**
   * Changes the fields of one SKU in one transaction: `set` gets the given fingerprints,
   * `remove` loses them (in flight, or changed on the platform).
   */
  update(changes: Iterable<{ sku: string; set?: FieldFingerprints; remove?: readonly string[] }>): void {
    const ackedAt = new Date().toISOString();
    this.db.transaction(() => {
      for (const { sku, set, remove } of changes) {
        const fields = { ...this.get(sku), ...set };
        for (const field of remove ?? []) delete fields[field];
        this.#put.run(sku, JSON.stringify(fields), ackedAt);
      }
    });
  }

  delete(sku: string): void {
    this.#delete.run(sku);
  }
}
