import { createHash } from 'node:crypto';
import type { SqlDatabase } from './sql/SqlDatabase.js';

/** The migrations' own record: each store has its own, written by its migrations. */
const OWN_TABLES = new Set(['schema_migrations']);

export interface StoreColumn {
  name: string;
  /** How a value is cast on PostgreSQL: every number the store keeps is an integer. */
  type: 'integer' | 'text';
  /** PostgreSQL identity columns: ALWAYS needs OVERRIDING SYSTEM VALUE to take a copied value. */
  identity: 'always' | 'by default' | null;
}

/**
 * The store's tables and their columns in order, read from the database itself (SQLite's
 * catalogue, PostgreSQL's information_schema of the store's schema), so that a copy or a
 * comparison covers every table, also one added by a later migration.
 */
export function storeTables(db: SqlDatabase): Map<string, StoreColumn[]> {
  const tables = new Map<string, StoreColumn[]>();
  if (db.dialect.name === 'sqlite') {
    const names = db
      .prepare<[], string>(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name",
      )
      .pluck()
      .all();
    const columns = db.prepare<[string], { name: string; type: string }>(
      'SELECT name, type FROM pragma_table_info(?) ORDER BY cid',
    );
    for (const name of names.filter((table) => !OWN_TABLES.has(table))) {
      tables.set(
        name,
        columns.all(name).map((c) => ({
          name: c.name,
          type: /INT/i.test(c.type) ? 'integer' : 'text',
          identity: null,
        })),
      );
    }
    return tables;
  }
  const rows = db
    .prepare<
      [],
      { table_name: string; column_name: string; data_type: string; identity_generation: string | null }
    >(
      `SELECT table_name, column_name, data_type, identity_generation
         FROM information_schema.columns
        WHERE table_schema = current_schema()
        ORDER BY table_name, ordinal_position`,
    )
    .all();
  for (const row of rows) {
    if (OWN_TABLES.has(row.table_name)) continue;
    const list = tables.get(row.table_name) ?? [];
    list.push({
      name: row.column_name,
      type: /int/i.test(row.data_type) ? 'integer' : 'text',
      identity:
        row.identity_generation === 'ALWAYS'
          ? 'always'
          : row.identity_generation === 'BY DEFAULT'
            ? 'by default'
            : null,
    });
    tables.set(row.table_name, list);
  }
  return new Map([...tables].sort(([a], [b]) => a.localeCompare(b)));
}

/** A table's name or column's name quoted for SQL (the names come from the catalogue, not a user). */
export const quoteName = (name: string): string => `"${name.replaceAll('"', '""')}"`;

/**
 * Reads the columns of `table` that `columns` name: SQLite's implicit `rowid` (an explicit column
 * on PostgreSQL, which has none) is selected by that name.
 */
export function selectColumns(table: string, columns: readonly string[]): string {
  return `SELECT ${columns.map(quoteName).join(', ')} FROM ${quoteName(table)}`;
}

export interface TableDigest {
  rows: number;
  /** SHA-256 (hex) over the table's rows in one canonical form, independent of the rows' order. */
  checksum: string;
}

/**
 * Row count and checksum of a table, the same on SQLite and PostgreSQL for the same rows: each
 * row becomes one string (a value's kind and text: a number and its decimal string differ, null is
 * neither), the strings are sorted (the databases order text differently) and hashed.
 */
export function tableDigest(db: SqlDatabase, table: string, columns: readonly string[]): TableDigest {
  const lines: string[] = [];
  for (const row of db.prepare<[], unknown[]>(selectColumns(table, columns)).raw().iterate())
    lines.push((row as unknown[]).map(canonical).join('\u001f'));
  lines.sort();
  const hash = createHash('sha256');
  for (const line of lines) hash.update(line).update('\u001e');
  return { rows: lines.length, checksum: hash.digest('hex') };
}

function canonical(value: unknown): string {
  if (value === null || value === undefined) return '\u0000';
  if (typeof value === 'number' || typeof value === 'bigint') return `n${String(value)}`;
  if (typeof value === 'boolean') return `n${value ? 1 : 0}`;
  if (Buffer.isBuffer(value)) return `b${value.toString('hex')}`;
  return `s${String(value)}`;
}
