import type { SqlDatabase } from './sql/SqlDatabase.js';
import { StoreCopyError } from './StoreCopyError.js';
import { quoteName, selectColumns, storeTables, tableDigest, type StoreColumn } from './storeTables.js';

/** Rows per INSERT: one JSON parameter each, so the count is bounded by memory, not parameters. */
const CHUNK_ROWS = 1000;

export interface TableComparison {
  table: string;
  source: { rows: number; checksum: string };
  target: { rows: number; checksum: string };
  equal: boolean;
}

export interface CopyOptions {
  /** Empty a target that holds rows (else it is refused). */
  replace?: boolean;
}

/**
 * Copies every table of an SQLite store into a PostgreSQL store (both migrated to the same
 * version) in one transaction on the target, then reads both again and compares each table's row
 * count and checksum: a copy that differs throws `store_copy_mismatch` (the rows stay, for a look;
 * `--replace` copies again). A target holding rows is refused (`store_copy_refused`) unless
 * `replace`: then it is emptied in the same transaction.
 */
export function copyStore(
  source: SqlDatabase,
  target: SqlDatabase,
  options: CopyOptions = {},
): TableComparison[] {
  if (source.dialect.name !== 'sqlite' || target.dialect.name !== 'postgres')
    throw new StoreCopyError(
      'store_copy_refused',
      `a store is copied from SQLite to PostgreSQL, not from ${source.dialect.name} to ${target.dialect.name}`,
    );
  const tables = matchingTables(source, target);
  const count = (table: string) =>
    target
      .prepare<[], number>(`SELECT count(*) FROM ${quoteName(table)}`)
      .pluck()
      .get() ?? 0;
  const filled = [...tables.keys()]
    .map((table) => [table, count(table)] as const)
    .filter(([, rows]) => rows > 0);
  if (filled.length && !options.replace)
    throw new StoreCopyError(
      'store_copy_refused',
      `the target store is not empty (${filled.map(([table, rows]) => `${table}: ${rows}`).join(', ')}); ` +
        'copy over it with --replace, or name an empty schema',
      { tables: Object.fromEntries(filled) },
    );
  target.transaction(() => {
    if (filled.length)
      target.exec(`TRUNCATE ${[...tables.keys()].map(quoteName).join(', ')} RESTART IDENTITY`);
    for (const [table, columns] of tables) copyTable(source, target, table, columns);
  });
  const comparison = compareStores(source, target);
  const differing = comparison.filter((table) => !table.equal);
  if (differing.length) throw mismatch(differing);
  return comparison;
}

/** Row count and checksum of every table on both stores (`store migrate --check`, and after a copy). */
export function compareStores(source: SqlDatabase, target: SqlDatabase): TableComparison[] {
  return [...matchingTables(source, target)].map(([table, columns]) => {
    const names = columns.map((c) => c.name);
    const from = tableDigest(source, table, names);
    const to = tableDigest(target, table, names);
    return {
      table,
      source: from,
      target: to,
      equal: from.rows === to.rows && from.checksum === to.checksum,
    };
  });
}

export function mismatch(differing: readonly TableComparison[]): StoreCopyError {
  const what = differing.map((t) =>
    t.source.rows !== t.target.rows
      ? `${t.table}: ${t.source.rows} row(s) in the source, ${t.target.rows} in the copy`
      : `${t.table}: same ${t.source.rows} row(s), different content (checksum ${t.source.checksum.slice(0, 12)} != ${t.target.checksum.slice(0, 12)})`,
  );
  return new StoreCopyError('store_copy_mismatch', `the copy differs from the source: ${what.join('; ')}`, {
    tables: differing.map((t) => t.table),
  });
}

/**
 * The target's tables, each checked against the source's: the same tables and columns (SQLite's
 * implicit rowid aside, a column on PostgreSQL), at the same schema version.
 */
function matchingTables(source: SqlDatabase, target: SqlDatabase): Map<string, StoreColumn[]> {
  const version = (db: SqlDatabase) =>
    db.prepare<[], number | null>('SELECT max(version) FROM schema_migrations').pluck().get() ?? null;
  const [from, to] = [version(source), version(target)];
  if (from !== to)
    throw new StoreCopyError(
      'store_copy_refused',
      `the stores are at different schema versions (source ${from}, target ${to}): run this erp-sync version's migrations on both`,
    );
  const sourceTables = storeTables(source);
  const targetTables = storeTables(target);
  const problems: string[] = [];
  for (const table of sourceTables.keys())
    if (!targetTables.has(table)) problems.push(`table ${table} is missing in the target`);
  for (const [table, columns] of targetTables) {
    const sourceColumns = sourceTables.get(table);
    if (!sourceColumns) {
      problems.push(`table ${table} is missing in the source`);
      continue;
    }
    const names = new Set(sourceColumns.map((c) => c.name));
    for (const column of columns)
      if (!names.has(column.name) && column.name !== 'rowid')
        problems.push(`column ${table}.${column.name} is missing in the source`);
    const targetNames = new Set(columns.map((c) => c.name));
    for (const column of sourceColumns)
      if (!targetNames.has(column.name))
        problems.push(`column ${table}.${column.name} is missing in the target`);
  }
  if (problems.length)
    throw new StoreCopyError('store_copy_refused', `the stores' tables differ: ${problems.join('; ')}`);
  return targetTables;
}

function copyTable(source: SqlDatabase, target: SqlDatabase, table: string, columns: StoreColumn[]): void {
  const names = columns.map((c) => c.name);
  const values = columns
    .map((c, i) => (c.type === 'integer' ? `(r.value ->> ${i})::bigint` : `(r.value ->> ${i})`))
    .join(', ');
  const overriding = columns.some((c) => c.identity === 'always') ? ' OVERRIDING SYSTEM VALUE' : '';
  const insert = target.prepare<[string]>(
    `INSERT INTO ${quoteName(table)} (${names.map(quoteName).join(', ')})${overriding}
     SELECT ${values} FROM ${target.dialect.rows('r')}`,
  );
  let chunk: unknown[][] = [];
  const flush = () => {
    if (chunk.length) insert.run(JSON.stringify(chunk));
    chunk = [];
  };
  for (const row of source.prepare<[], unknown[]>(selectColumns(table, names)).raw().iterate()) {
    chunk.push(row as unknown[]);
    if (chunk.length >= CHUNK_ROWS) flush();
  }
  flush();
  // The next id a repository inserts comes after the copied ones.
  for (const column of columns.filter((c) => c.identity !== null))
    target
      .prepare(
        `SELECT setval(pg_get_serial_sequence(?, ?), coalesce((SELECT max(${quoteName(column.name)}) FROM ${quoteName(table)}), 0) + 1, false)`,
      )
      .get(quoteName(table), column.name);
}
