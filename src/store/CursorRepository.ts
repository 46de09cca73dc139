import type { SqlDatabase, SqlStatement } from './sql/SqlDatabase.js';

/** Named string positions: catalog cursors, ERP checkpoints. */
export class CursorRepository {
  readonly #get: SqlStatement<[string], { value: string }>;
  readonly #set: SqlStatement<[string, string, string]>;
  readonly #delete: SqlStatement<[string]>;
  readonly #all: SqlStatement<[], { name: string; value: string; updated_at: string }>;

  constructor(db: SqlDatabase) {
    this.#get = db.prepare('SELECT value FROM cursors WHERE name = ?');
    this.#set = db.prepare(
      `INSERT INTO cursors (name, value, updated_at) VALUES (?, ?, ?)
       ON CONFLICT (name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
    );
    this.#delete = db.prepare('DELETE FROM cursors WHERE name = ?');
    this.#all = db.prepare('SELECT name, value, updated_at FROM cursors ORDER BY name');
  }

  get(name: string): string | null {
    return this.#get.get(name)?.value ?? null;
  }

  set(name: string, value: string): void {
    this.#set.run(name, value, new Date().toISOString());
  }

  delete(name: string): void {
    this.#delete.run(name);
  }

  /** Every cursor and checkpoint, for `erp-sync status`. */
  all(): { name: string; value: string; updatedAt: string }[] {
    return this.#all.all().map((row) => ({ name: row.name, value: row.value, updatedAt: row.updated_at }));
  }
}
