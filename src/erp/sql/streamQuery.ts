import Database from 'better-sqlite3';
import type { Knex } from 'knex';
import { mysqlStreamRows } from './mysqlStreamRows.js';
import { pgCursorRows } from './pgCursorRows.js';
import type { SqlClient } from './sqlConfigSchema.js';
import { toSqlError } from './SqlErpError.js';

/** Where streamed queries run: the pool, and for SQLite the file (read by a connection of its own). */
export interface QuerySource {
  db: Knex;
  client: SqlClient;
  filename?: string;
  /** Which database, for errors (describeSqlDatabase). */
  database?: string;
}

/** One row of a query, its columns as the driver gave them, numbered from 1. */
export interface SqlRow {
  fields: Record<string, unknown>;
  /** The column names, the same array for every row of the query (a driver gives every row the same columns). */
  columns: readonly string[];
  line: number;
}

/** Bound values of one query, by parameter name. */
export type Bindings = Record<string, string | number | Date | null>;

/** Rows per batch, and per PostgreSQL cursor read: fewer round trips (500 left the reader waiting half the time). */
const BATCH = 2000;

/**
 * Runs one integrator query and yields its rows in batches, numbered from 1, as a cursor (pg
 * through pg-query-stream, mysql2 and tedious as row streams): a million rows never sit in memory.
 * Values are parameterised by name (knex named bindings); nothing is spliced into the SQL text.
 * A failure before or during the read is the project's error naming the query.
 */
export async function* streamQuery(
  source: QuerySource,
  name: string,
  sql: string,
  bindings: Bindings,
): AsyncIterable<SqlRow[]> {
  let line = 0;
  let columns: readonly string[] | undefined;
  try {
    for await (const rows of rowBatches(source, sql, bindings)) {
      if (!rows.length) continue;
      columns ??= Object.keys(rows[0]!);
      const batch: SqlRow[] = [];
      for (const row of rows) batch.push({ fields: plainValues(row), columns, line: ++line });
      yield batch;
    }
  } catch (error) {
    throw toSqlError(error, `the ${name} query`, source.database);
  }
}

/**
 * PostgreSQL through a server-side cursor (pgCursorRows), MySQL as a mysql2 row stream (both
 * watching their connection), SQL Server as knex's tedious stream; in batches.
 * For SQLite, knex reads everything first and, when the statement fails, throws from a stream
 * callback where nothing can catch it: better-sqlite3's own iterator over a read-only connection
 * streams instead.
 */
function rowBatches(
  source: QuerySource,
  sql: string,
  bindings: Bindings,
): AsyncIterable<Record<string, unknown>[]> {
  const native = source.db.raw(sql, bindings).toSQL().toNative();
  const values = native.bindings as unknown[];
  if (source.client === 'pg') return pgCursorRows(source.db, native.sql, values, BATCH);
  if (source.client === 'sqlite') return sqliteRows(source.filename ?? ':memory:', native.sql, values);
  if (source.client === 'mysql') return mysqlStreamRows(source.db, native.sql, values);
  return grouped(source.db.raw(sql, bindings).stream() as AsyncIterable<Record<string, unknown>>);
}

async function* grouped<T>(rows: AsyncIterable<T>): AsyncIterable<T[]> {
  let batch: T[] = [];
  for await (const row of rows) {
    batch.push(row);
    if (batch.length >= BATCH) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length) yield batch;
}

async function* sqliteRows(
  filename: string,
  sql: string,
  bindings: unknown[],
): AsyncIterable<Record<string, unknown>[]> {
  const connection = new Database(filename, { readonly: true, fileMustExist: true });
  try {
    const statement = connection.prepare(sql);
    let batch: Record<string, unknown>[] = [];
    for (const row of statement.iterate(...bindings.map(sqliteValue))) {
      batch.push(row as Record<string, unknown>);
      // Hand on a batch and give the event loop a turn: a long read must not starve timers and sockets.
      if (batch.length >= BATCH) {
        yield batch;
        batch = [];
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    }
    if (batch.length) yield batch;
  } finally {
    connection.close();
  }
}

function sqliteValue(value: unknown): unknown {
  return value instanceof Date
    ? value
        .toISOString()
        .replace('T', ' ')
        .replace(/(\.\d+)?Z$/, '')
    : value;
}

/** Runs a query and returns all its rows (small results only: look-ups, checks). `database` names it in errors. */
export async function queryRows(
  db: Knex | Knex.Transaction,
  name: string,
  sql: string,
  bindings: Bindings,
  database?: string,
): Promise<Record<string, unknown>[]> {
  try {
    const result: unknown = await db.raw(sql, bindings);
    return resultRows(result).map(plainRow);
  } catch (error) {
    throw toSqlError(error, `the ${name} query`, database);
  }
}

/** knex.raw answers in the driver's shape: pg {rows}, mysql2 [rows, fields], sqlite and mssql rows. */
export function resultRows(result: unknown): Record<string, unknown>[] {
  if (Array.isArray(result)) {
    const [first] = result as unknown[];
    if (Array.isArray(first)) return first as Record<string, unknown>[];
    // mysql2 answers a statement that returns no rows with [ResultSetHeader, undefined].
    if (first && typeof first === 'object' && 'affectedRows' in first) return [];
    return (result as unknown[]).filter(
      (row): row is Record<string, unknown> => typeof row === 'object' && row !== null,
    );
  }
  if (result && typeof result === 'object' && Array.isArray((result as { rows?: unknown }).rows)) {
    return (result as { rows: Record<string, unknown>[] }).rows;
  }
  return [];
}

/** Driver values as the mappers read them: dates as ISO text, big integers as text. */
function plainRow(row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) out[key] = plainValue(value);
  return out;
}

/**
 * The same, in place: a streamed row is the driver's fresh object and only this reader holds it,
 * so a row without dates, big integers or bytes costs no copy.
 */
function plainValues(row: Record<string, unknown>): Record<string, unknown> {
  for (const key in row) {
    const value = row[key];
    if (typeof value === 'bigint' || (typeof value === 'object' && value !== null))
      row[key] = plainValue(value);
  }
  return row;
}

function plainValue(value: unknown): unknown {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (typeof value === 'bigint') return value.toString();
  if (Buffer.isBuffer(value)) return value.toString('utf8');
  return value;
}
