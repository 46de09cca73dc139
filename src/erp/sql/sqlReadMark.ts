import type { Knex } from 'knex';
import { asReadReceipt, type ReadReceipt } from '../ErpRead.js';
import type { SqlClient } from './sqlConfigSchema.js';
import { queryRows } from './streamQuery.js';

/** What a SQL read's receipt holds: when the read began and when the last full read began (database time). */
export interface SqlReadMark {
  /** ISO 8601, UTC. */
  mark: string;
  fullAt: string;
}

const NOW: Record<SqlClient, string> = {
  pg: 'select current_timestamp as now',
  mysql: 'select current_timestamp(3) as now',
  mssql: 'select sysdatetimeoffset() as now',
  sqlite: "select strftime('%Y-%m-%dT%H:%M:%fZ', 'now') as now",
};

/**
 * The database's own clock when a read begins: rows changed from then on are read next time.
 * The database's clock, not ours, because `:since` is compared with the database's timestamps.
 */
export async function databaseNow(db: Knex, client: SqlClient): Promise<string> {
  const [row] = await queryRows(db, 'clock', NOW[client], {});
  const value = row?.now;
  const date = value instanceof Date ? value : new Date(String(value));
  if (Number.isNaN(date.getTime())) throw new Error(`the database clock answered ${String(value)}`);
  return date.toISOString();
}

export function readMarkReceipt(mark: SqlReadMark): ReadReceipt {
  return asReadReceipt(JSON.stringify({ sql: mark }));
}

/** The mark of a receipt this adapter wrote; null for anything else (a first read, another adapter's). */
export function parseReadMark(receipt: ReadReceipt | null | undefined): SqlReadMark | null {
  if (!receipt) return null;
  try {
    const parsed = JSON.parse(receipt) as { sql?: Partial<SqlReadMark> };
    const { mark, fullAt } = parsed.sql ?? {};
    if (typeof mark !== 'string' || typeof fullAt !== 'string') return null;
    if (Number.isNaN(Date.parse(mark)) || Number.isNaN(Date.parse(fullAt))) return null;
    return { mark, fullAt };
  } catch {
    return null;
  }
}
