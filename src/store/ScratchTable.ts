import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import type { Database, Statement } from 'better-sqlite3';
import { chunks } from './chunks.js';

const CHUNK = 500;

/**
 * A throw-away key -> JSON table in a temporary SQLite file (not the store): lets a comparison
 * hold one side of 100k+ records on disk instead of in memory, in named spaces. Deleted by close().
 */
export class ScratchTable {
  readonly #db: Database;
  readonly #dir: string;
  readonly #put: Statement<[string, string, string]>;
  readonly #getMany: Statement<[string, string], { key: string; value: string }>;
  readonly #page: Statement<[string, string, number], { key: string; value: string }>;

  constructor() {
    this.#dir = mkdtempSync(join(tmpdir(), 'erp-sync-scratch-'));
    this.#db = new BetterSqlite3(join(this.#dir, 'scratch.db'));
    this.#db.pragma('journal_mode = OFF');
    this.#db.pragma('synchronous = OFF');
    this.#db.pragma('cache_size = -8000');
    this.#db.exec(
      'CREATE TABLE items (space TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (space, key))',
    );
    this.#put = this.#db.prepare(
      'INSERT INTO items (space, key, value) VALUES (?, ?, ?) ON CONFLICT (space, key) DO UPDATE SET value = excluded.value',
    );
    this.#getMany = this.#db.prepare(
      `SELECT i.key, i.value FROM json_each(?) AS k CROSS JOIN items AS i ON i.space = ? AND i.key = k.value`,
    );
    this.#page = this.#db.prepare(
      'SELECT key, value FROM items WHERE space = ? AND key > ? ORDER BY key LIMIT ?',
    );
  }

  putMany(space: string, entries: Iterable<readonly [string, unknown]>): void {
    this.#db.transaction(() => {
      for (const [key, value] of entries) this.#put.run(space, key, JSON.stringify(value));
    })();
  }

  getMany<T>(space: string, keys: readonly string[]): Map<string, T> {
    const out = new Map<string, T>();
    for (const part of chunks(keys, CHUNK)) {
      for (const row of this.#getMany.iterate(JSON.stringify(part), space))
        out.set(row.key, JSON.parse(row.value) as T);
    }
    return out;
  }

  /** Every entry of a space in key order, read a page at a time. */
  *entries<T>(space: string, pageSize = CHUNK): Generator<[string, T]> {
    let after = '';
    for (;;) {
      const rows = this.#page.all(space, after, pageSize);
      for (const row of rows) yield [row.key, JSON.parse(row.value) as T];
      if (rows.length < pageSize) return;
      after = rows.at(-1)!.key;
    }
  }

  close(): void {
    if (this.#db.open) this.#db.close();
    rmSync(this.#dir, { recursive: true, force: true });
  }
}
