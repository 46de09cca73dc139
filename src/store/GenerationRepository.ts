import type { SqlDatabase, SqlStatement } from './sql/SqlDatabase.js';

/**
 * Monotonic counters kept in the store: each scan takes the next generation, so a value read
 * later always carries a higher number than one read earlier, across processes and restarts.
 */
export class GenerationRepository {
  readonly #next: SqlStatement<[string], { value: number }>;
  readonly #current: SqlStatement<[string], { value: number }>;

  constructor(db: SqlDatabase) {
    this.#next = db.prepare(
      `INSERT INTO generations (name, value) VALUES (?, 1)
       ON CONFLICT (name) DO UPDATE SET value = generations.value + 1
       RETURNING value`,
    );
    this.#current = db.prepare('SELECT value FROM generations WHERE name = ?');
  }

  next(name: string): number {
    return this.#next.get(name)!.value;
  }

  /** The last number handed out, 0 when none was. */
  current(name: string): number {
    return this.#current.get(name)?.value ?? 0;
  }
}
