import { createHash } from 'node:crypto';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import { StoreError } from '../StoreError.js';
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
  readonly #worker: Worker;
  readonly #port: MessagePort;
  readonly #signal = new Int32Array(new SharedArrayBuffer(4));
  readonly #timeoutMs: number;
  readonly #where: string;
  #open = true;
  #depth = 0;
  #statements = 0;

  constructor(options: PostgresConnectionOptions) {
    if (!SCHEMA_NAME.test(options.schema)) {
      throw new StoreError(
        `invalid PostgreSQL schema name "${options.schema}": lower-case letters, digits, _`,
      );
    }
    this.#where = `${redactUrl(options.url)} (schema ${options.schema})`;
    this.#timeoutMs = options.timeoutMs ?? 60_000;
    this.lockKey = advisoryLockKey(options.schema);
    const { port1, port2 } = new MessageChannel();
    this.#port = port1;
    const data: WorkerData = {
      port: port2,
      signal: this.#signal,
      connection: {
        connectionString: options.url,
        schema: options.schema,
        ...(options.password === undefined ? {} : { password: options.password }),
      },
    };
    // The worker is TypeScript beside this file under tsx and the tests, JavaScript in dist.
    const extension = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
    this.#worker = new Worker(new URL(`./postgresWorker${extension}`, import.meta.url), {
      workerData: data,
      transferList: [port2],
    });
    this.#worker.unref();
    this.#port.unref();
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
    this.request({ op: 'exec', sql });
  }

  transaction<T>(fn: () => T): T {
    const depth = this.#depth;
    if (depth === 0) this.request({ op: 'begin', lockKey: this.lockKey });
    else this.exec(`SAVEPOINT s${depth}`);
    this.#depth += 1;
    let result: T;
    try {
      result = fn();
      if (isThenable(result)) throw new TypeError('Transaction function cannot return a promise');
    } catch (error) {
      this.#depth = depth;
      if (this.#open) {
        if (depth === 0) this.exec('ROLLBACK');
        else this.exec(`ROLLBACK TO SAVEPOINT s${depth}; RELEASE SAVEPOINT s${depth}`);
      }
      throw error;
    }
    this.#depth = depth;
    this.exec(depth === 0 ? 'COMMIT' : `RELEASE SAVEPOINT s${depth}`);
    return result;
  }

  immediateTransaction<T>(fn: () => T): T {
    return this.transaction(fn);
  }

  close(): void {
    if (!this.#open) return;
    try {
      this.request({ op: 'close' });
    } catch {
      // The connection is gone either way.
    } finally {
      this.#open = false;
      void this.#worker.terminate();
      this.#port.close();
    }
  }

  /** Posts one request to the worker and waits for its answer. */
  request(request: WorkerRequest): { rows: unknown[]; rowCount: number } {
    if (!this.#open) throw new StoreError(`the store at ${this.#where} is closed`);
    Atomics.store(this.#signal, 0, 0);
    this.#port.postMessage(request);
    if (Atomics.wait(this.#signal, 0, 0, this.#timeoutMs) === 'timed-out') {
      this.#open = false;
      void this.#worker.terminate();
      throw new StoreError(`the store at ${this.#where} did not answer within ${this.#timeoutMs} ms`);
    }
    const answer = receiveMessageOnPort(this.#port)?.message as WorkerAnswer | undefined;
    if (!answer) throw new StoreError(`the store at ${this.#where} sent no answer`);
    if ('error' in answer) {
      const code = answer.error.code ? ` [${answer.error.code}]` : '';
      throw new StoreError(`PostgreSQL store at ${this.#where}: ${answer.error.message}${code}`);
    }
    return answer;
  }
}

class PostgresStatement<P extends unknown[] | object, R> implements SqlStatement<P, R> {
  #rowMode: 'object' | 'array' | 'pluck' = 'object';

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
    return this.#query(params).rows[Symbol.iterator]();
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
    const answer = this.db.request({
      op: 'query',
      sql: this.sql.text,
      params: this.#values(params),
      name: this.name,
      ...(this.#rowMode === 'object' ? {} : { rowMode: 'array' as const }),
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
