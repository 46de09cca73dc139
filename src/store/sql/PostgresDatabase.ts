import { createHash } from 'node:crypto';
import { StoreBusyError, StoreError } from '../StoreError.js';
import { BlockingWorker, type BlockingWorkerData } from './BlockingWorker.js';
import { POSTGRES } from './dialect.js';
import { positionalSql, type PositionalSql } from './positionalSql.js';
import type { RunResult, SqlDatabase, SqlStatement } from './SqlDatabase.js';
import type { WorkerAnswer, WorkerData, WorkerRequest } from './postgresWorker.js';

export interface PostgresConnectionOptions {
  /** postgres://user@host:port/database, without the password. */
  url: string;
  /** The password (from the environment), kept apart from the URL so that no message shows it. */
  password?: string | undefined;
  /** The schema holding the store's tables; the advisory lock is derived from it. */
  schema: string;
  /** How long one statement (or a wait for another host's write transaction) may take (ms). */
  timeoutMs?: number;
}

/** Rows an iteration fetches per round trip (its server-side cursor's page): what it holds at once. */
export const ITERATE_PAGE_ROWS = 1000;

/** How much longer than the statement timeout the caller waits for a worker that does not answer. */
const HARD_TIMEOUT_MARGIN_MS = 10_000;

export const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** The URL as it may be shown: no password, whatever the configuration held. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(an unparsable PostgreSQL URL)';
  }
}

/**
 * The SQL port over one PostgreSQL connection held by a worker thread: each statement is posted
 * to the worker and the calling thread blocks until its answer, so the store stays synchronous
 * and a transaction never interleaves with other work of the process, as on SQLite.
 *
 * Every write (a transaction, or a lone INSERT/UPDATE/DELETE) first takes one advisory lock
 * derived from the schema: writers take turns across processes and hosts like SQLite's single
 * writer, so every invariant proven on SQLite holds (a max()+1 sequence, a read-then-write).
 */
export class PostgresDatabase implements SqlDatabase {
  readonly dialect = POSTGRES;
  readonly lockKey: string;
  readonly #options: PostgresConnectionOptions;
  readonly #timeoutMs: number;
  readonly #where: string;
  /** The worker holding the connection; undefined after it stopped answering (a new one is started). */
  #worker: BlockingWorker<WorkerRequest, WorkerAnswer> | undefined;
  #open = true;
  #depth = 0;
  #statements = 0;
  #cursors = 0;
  /** The open iterations (their cursor's name), each with the transaction depth it began at. */
  readonly #iterations = new Map<string, number>();

  constructor(options: PostgresConnectionOptions) {
    if (!SCHEMA_NAME.test(options.schema)) {
      throw new StoreError(
        `invalid PostgreSQL schema name "${options.schema}": lower-case letters, digits, _`,
      );
    }
    this.#where = `${redactUrl(options.url)} (schema ${options.schema})`;
    this.#timeoutMs = options.timeoutMs ?? 60_000;
    this.#options = options;
    this.lockKey = advisoryLockKey(options.schema);
    try {
      this.request({ op: 'connect' });
    } catch (error) {
      this.close();
      throw error;
    }
  }

  get open(): boolean {
    return this.#open;
  }

  /** Where the store is, for messages: the URL without its password, and the schema. */
  get where(): string {
    return this.#where;
  }

  get inTransaction(): boolean {
    return this.#depth > 0;
  }

  prepare<P extends unknown[] | object = unknown[], R = unknown>(sql: string): SqlStatement<P, R> {
    return new PostgresStatement<P, R>(this, positionalSql(sql), `s${++this.#statements}`, isWrite(sql));
  }

  exec(sql: string): void {
    this.assertNotIterating('a statement');
    this.#exec(sql);
  }

  #exec(sql: string): void {
    this.request({ op: 'exec', sql, inTransaction: this.inTransaction });
  }

  transaction<T>(fn: () => T): T {
    this.assertNotIterating('a transaction');
    const depth = this.#depth;
    if (depth === 0) this.request({ op: 'begin', lockKey: this.lockKey });
    else this.#exec(`SAVEPOINT s${depth}`);
    this.#depth += 1;
    let result: T;
    try {
      result = fn();
      if (isThenable(result)) throw new TypeError('Transaction function cannot return a promise');
      this.assertNotIterating('the end of a transaction');
    } catch (error) {
      try {
        this.#exec(depth === 0 ? 'ROLLBACK' : `ROLLBACK TO SAVEPOINT s${depth}; RELEASE SAVEPOINT s${depth}`);
      } catch {
        // The connection is gone: the server rolled the transaction back. The first error is the one to tell.
      } finally {
        this.#endLevel(depth);
      }
      throw error;
    }
    try {
      this.#exec(depth === 0 ? 'COMMIT' : `RELEASE SAVEPOINT s${depth}`);
    } finally {
      this.#endLevel(depth);
    }
    return result;
  }

  /** A transaction level ended: the cursors it opened are gone with it. */
  #endLevel(depth: number): void {
    this.#depth = depth;
    for (const [cursor, began] of this.#iterations) if (began > depth) this.#iterations.delete(cursor);
  }

  /**
   * As better-sqlite3 on SQLite: while an iteration is open, reads run, but a write, exec or a
   * transaction (its start or its end) is refused. The rule is the same on both stores, so code
   * proven on one runs on the other.
   */
  assertNotIterating(what: string): void {
    if (this.#iterations.size === 0) return;
    throw new StoreBusyError(
      `the store at ${this.#where} is busy: ${what} while an iteration over a result is open (finish the loop or leave it first)`,
    );
  }

  /**
   * The rows of a SELECT through a server-side cursor, a page per round trip: the process holds
   * one page, whatever the result's size. Outside a transaction the cursor is WITH HOLD (it
   * outlives the implicit transaction of its DECLARE, so other reads run between pages); inside
   * one it sees the transaction and ends with it. Leaving the loop early (return()) closes it.
   */
  *iterate(sql: string, params: unknown[], arrays: boolean): Generator<unknown, undefined, undefined> {
    const cursor = `c${++this.#cursors}`;
    const rowMode = arrays ? { rowMode: 'array' as const } : {};
    this.#iterations.set(cursor, this.#depth);
    let open = false;
    try {
      let page = this.request({
        op: 'declare',
        cursor,
        sql,
        params,
        hold: this.#depth === 0,
        pageRows: ITERATE_PAGE_ROWS,
        inTransaction: this.inTransaction,
        ...rowMode,
      });
      open = !page.done;
      for (;;) {
        yield* page.rows;
        if (!open) return undefined;
        if (!this.#iterations.has(cursor)) {
          throw new StoreError(
            `the store at ${this.#where}: an iteration was left open past the end of its transaction`,
          );
        }
        page = this.request({ op: 'fetch', cursor, pageRows: ITERATE_PAGE_ROWS, ...rowMode });
        open = !page.done;
      }
    } finally {
      if (this.#iterations.delete(cursor) && open) {
        try {
          this.request({ op: 'closeCursor', cursor });
        } catch {
          // A lost connection took the cursor with it; an aborted transaction ends it at its rollback.
        }
      }
    }
  }

  close(): void {
    if (!this.#open) return;
    try {
      if (this.#worker) this.request({ op: 'close' });
    } catch {
      // The connection is gone either way.
    } finally {
      this.#open = false;
      this.#stopWorker();
    }
  }

  /** Posts one request to the worker and waits for its answer. */
  request(request: WorkerRequest): { rows: unknown[]; rowCount: number; done?: boolean } {
    if (!this.#open) throw new StoreError(`the store at ${this.#where} is closed`);
    if (!this.#worker && this.#depth > 0) {
      throw new StoreError(`the store at ${this.#where} stopped answering inside a transaction`);
    }
    const worker = (this.#worker ??= this.#startWorker());
    // PostgreSQL itself cancels a statement after the timeout (statement_timeout); this is for a
    // server or network that does not answer at all. The worker is replaced: its connection is lost.
    const answer = worker.call(request, this.#timeoutMs + HARD_TIMEOUT_MARGIN_MS);
    if (!answer) {
      this.#stopWorker();
      throw new StoreError(`the store at ${this.#where} did not answer within ${this.#timeoutMs} ms`);
    }
    if ('error' in answer) {
      const code = answer.error.code ? ` [${answer.error.code}]` : '';
      throw new StoreError(`PostgreSQL store at ${this.#where}: ${answer.error.message}${code}`);
    }
    return answer;
  }

  #startWorker(): BlockingWorker<WorkerRequest, WorkerAnswer> {
    const data: Omit<WorkerData, keyof BlockingWorkerData> = {
      connection: {
        connectionString: this.#options.url,
        schema: this.#options.schema,
        statementTimeoutMs: this.#timeoutMs,
        ...(this.#options.password === undefined ? {} : { password: this.#options.password }),
      },
    };
    // The worker is TypeScript beside this file under tsx and the tests, JavaScript in dist.
    const extension = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
    return new BlockingWorker(new URL(`./postgresWorker${extension}`, import.meta.url), data);
  }

  #stopWorker(): void {
    if (!this.#worker) return;
    this.#worker.stop();
    this.#worker = undefined;
  }
}

class PostgresStatement<P extends unknown[] | object, R> implements SqlStatement<P, R> {
  #rowMode: 'object' | 'array' | 'pluck' = 'object';
  #iterating = false;

  constructor(
    private readonly db: PostgresDatabase,
    private readonly sql: PositionalSql,
    private readonly name: string,
    private readonly write: boolean,
  ) {}

  run(...params: unknown[]): RunResult {
    return { changes: this.#query(params).rowCount };
  }

  get(...params: unknown[]): R | undefined {
    return this.#query(params).rows[0];
  }

  all(...params: unknown[]): R[] {
    return this.#query(params).rows;
  }

  iterate(...params: unknown[]): IterableIterator<R> {
    // DECLARE takes a SELECT only: a write's rows (RETURNING) come in one answer.
    if (this.write) return this.#query(params).rows[Symbol.iterator]();
    this.#assertIdle();
    return this.#pages(this.#values(params));
  }

  *#pages(values: unknown[]): Generator<R, undefined, undefined> {
    this.#iterating = true;
    try {
      for (const row of this.db.iterate(this.sql.text, values, this.#rowMode !== 'object'))
        yield (this.#rowMode === 'pluck' ? (row as unknown[])[0] : row) as R;
    } finally {
      this.#iterating = false;
    }
    return undefined;
  }

  #assertIdle(): void {
    if (this.#iterating) {
      throw new StoreBusyError(
        `the store at ${this.db.where} is busy: this statement's iteration is open (finish the loop or leave it first)`,
      );
    }
    if (this.write) this.db.assertNotIterating('a write');
  }

  raw(): SqlStatement<P, R> {
    this.#rowMode = 'array';
    return this;
  }

  pluck(): SqlStatement<P, R> {
    this.#rowMode = 'pluck';
    return this;
  }

  #query(params: unknown[]): { rows: R[]; rowCount: number } {
    this.#assertIdle();
    const answer = this.db.request({
      op: 'query',
      sql: this.sql.text,
      params: this.#values(params),
      name: this.name,
      ...(this.#rowMode === 'object' ? {} : { rowMode: 'array' as const }),
      inTransaction: this.db.inTransaction,
      ...(this.write && !this.db.inTransaction ? { lockKey: this.db.lockKey } : {}),
    });
    const rows = this.#rowMode === 'pluck' ? (answer.rows as unknown[][]).map((row) => row[0]) : answer.rows;
    return { rows: rows as R[], rowCount: answer.rowCount };
  }

  #values(params: unknown[]): unknown[] {
    const names = this.sql.names;
    const values = names ? names.map((name) => (params[0] as Record<string, unknown>)[name]) : params;
    return values.map((value) => (value === undefined ? null : value));
  }
}

function isWrite(sql: string): boolean {
  return !/^\s*(SELECT|WITH\s+\w+\s+AS\s*\(\s*SELECT)\b/i.test(sql);
}

function isThenable(value: unknown): boolean {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

/** The advisory lock of a store: a 64-bit key from its schema's name (one store, one lock). */
export function advisoryLockKey(schema: string): string {
  return createHash('sha256').update(`erp-sync store ${schema}`).digest().readBigInt64BE(0).toString();
}
