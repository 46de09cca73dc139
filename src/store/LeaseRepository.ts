import type { SqlDatabase, SqlStatement } from './sql/SqlDatabase.js';

/**
 * A cross-process lock with expiry: two overlapping runs of one pipeline serialise, and the lease
 * of a crashed run lapses after its TTL. Each operation is one SQL statement, atomic in SQLite.
 */
export class LeaseRepository {
  readonly #acquire: SqlStatement<[string, string, number, number]>;
  readonly #renew: SqlStatement<[number, string, string]>;
  readonly #release: SqlStatement<[string, string]>;
  readonly #holder: SqlStatement<[string, number], { owner: string; expires_at: number }>;

  constructor(
    db: SqlDatabase,
    private readonly now: () => number,
  ) {
    this.#acquire = db.prepare(
      `INSERT INTO leases (name, owner, expires_at) VALUES (?, ?, ?)
       ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at
       WHERE leases.owner = excluded.owner OR leases.expires_at <= ?`,
    );
    this.#renew = db.prepare('UPDATE leases SET expires_at = ? WHERE name = ? AND owner = ?');
    this.#release = db.prepare('DELETE FROM leases WHERE name = ? AND owner = ?');
    this.#holder = db.prepare('SELECT owner, expires_at FROM leases WHERE name = ? AND expires_at > ?');
  }

  /** True when `owner` now holds the lease (taken fresh, re-taken by the same owner, or expired). */
  acquire(name: string, owner: string, ttlMs: number): boolean {
    const now = this.now();
    return this.#acquire.run(name, owner, now + ttlMs, now).changes === 1;
  }

  /** Extends a lease still held by `owner`; false when another owner took it meanwhile. */
  renew(name: string, owner: string, ttlMs: number): boolean {
    return this.#renew.run(this.now() + ttlMs, name, owner).changes === 1;
  }

  /** True when `owner` held the lease and let it go; false when it was not (or no longer) its. */
  release(name: string, owner: string): boolean {
    return this.#release.run(name, owner).changes === 1;
  }

  /** The current holder of an unexpired lease, if any. */
  holder(name: string): { owner: string; expiresAt: number } | undefined {
    const row = this.#holder.get(name, this.now());
    return row ? { owner: row.owner, expiresAt: row.expires_at } : undefined;
  }
}
