import type { Dialect } from './dialect.js';

/** Positional (`?`) parameters as a list, or named (`@name`) ones as an object. */
export type SqlParams = unknown[] | [Record<string, unknown>];

export interface RunResult {
  /** Rows the statement inserted, updated or deleted. */
  changes: number;
}

/**
 * One prepared statement of the store's SQL port. `P` types its parameters (a tuple of positional
 * ones, or one object of named ones), `R` a row. Synchronous on every database: see SqlDatabase.
 */
export interface SqlStatement<P extends unknown[] | object = unknown[], R = unknown> {
  run(...params: ParamsOf<P>): RunResult;
  get(...params: ParamsOf<P>): R | undefined;
  all(...params: ParamsOf<P>): R[];
  iterate(...params: ParamsOf<P>): IterableIterator<R>;
  /** Rows as arrays of column values (no object per row). */
  raw(): SqlStatement<P, R>;
  /** Each row as the value of its first column. */
  pluck(): SqlStatement<P, R>;
}

export type ParamsOf<P> = P extends unknown[] ? P : [P];

/**
 * The store's SQL port: what the repositories need of a database, the same on SQLite and on
 * PostgreSQL. Synchronous on both, so that a transaction's function never yields to other work
 * of the process (the invariants of the store were proven on that: one writer at a time).
 */
export interface SqlDatabase {
  readonly dialect: Dialect;
  readonly open: boolean;
  prepare<P extends unknown[] | object = unknown[], R = unknown>(sql: string): SqlStatement<P, R>;
  /** Runs statements without parameters (migrations, tests). */
  exec(sql: string): void;
  /**
   * Runs fn in one transaction (nested calls become savepoints); returns its result. It holds the
   * store's write lock from its start (SQLite's BEGIN IMMEDIATE, PostgreSQL's advisory lock), so
   * what it reads is what it writes over: another process's write waits, neither fails nor is lost.
   */
  transaction<T>(fn: () => T): T;
  close(): void;
}
