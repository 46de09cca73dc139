import type { Database } from 'better-sqlite3';
import { SQLITE } from './dialect.js';
import type { SqlDatabase, SqlStatement } from './SqlDatabase.js';

/** The SQL port over better-sqlite3: a statement is better-sqlite3's own, nothing in between. */
export class SqliteDatabase implements SqlDatabase {
  readonly dialect = SQLITE;
  /**
   * One better-sqlite3 transaction function, made once, that runs the function it is given:
   * `native.transaction(fn)` per call built four wrappers and their properties each time (200
   * transactions per 100k pushed items).
   */
  readonly #run: ReturnType<Database['transaction']>;

  constructor(
    /** better-sqlite3's connection, for what only SQLite has (pragmas, its own tests). */
    readonly native: Database,
  ) {
    this.#run = native.transaction((fn: () => unknown) => fn());
  }

  get open(): boolean {
    return this.native.open;
  }

  prepare<P extends unknown[] | object = unknown[], R = unknown>(sql: string): SqlStatement<P, R> {
    // better-sqlite3's statement has the port's shape (run, get, all, iterate, raw(), pluck()):
    // handed out as it is, so the SQLite store pays nothing for the port.
    return this.native.prepare(sql) as unknown as SqlStatement<P, R>;
  }

  exec(sql: string): void {
    this.native.exec(sql);
  }

  /**
   * BEGIN IMMEDIATE: the write lock from the start, waiting for another process's (the busy
   * timeout). A deferred BEGIN reads first and then asks for the lock, and SQLite fails that at
   * once with SQLITE_BUSY while another process writes (it cannot wait: its snapshot may be
   * stale): two daemons on one store file failed import jobs so.
   */
  transaction<T>(fn: () => T): T {
    return this.#run.immediate(fn) as T;
  }

  close(): void {
    if (this.native.open) this.native.close();
  }
}
