import type { Knex } from 'knex';
import { asReadReceipt, type ReadReceipt } from '../ErpRead.js';
import type { SqlClient } from './sqlConfigSchema.js';
import { queryRows } from './streamQuery.js';

/**
 * What a SQL read's receipt holds, all from the database's clock: when the read began, when the
 * last full read began, the session zone's UTC offset when the read began, and the business day
 * the read saw (for the full read at day change).
 */
export interface SqlReadMark {
  /** ISO 8601, UTC. */
  mark: string;
  fullAt: string;
  /** Minutes east of UTC of the database session's zone at `mark` (absent in older receipts). */
  offsetMinutes?: number;
  /** YYYY-MM-DD: the day of `mark` in the business zone (absent in older receipts). */
  day?: string;
}

/** The database's clock at one moment: the instant, its session zone's offset, and its date. */
export interface DatabaseClock {
  /** ISO 8601, UTC. */
  now: string;
  offsetMinutes: number;
  /** YYYY-MM-DD, the database's `current_date`. */
  today: string;
}

// Each dialect answers the instant without a zone to guess (a timestamptz, a Unix time, a
// datetimeoffset, UTC text), its session's offset from UTC, and its current date.
const CLOCK: Record<SqlClient, string> = {
  pg: `select current_timestamp as now, to_char(current_date, 'YYYY-MM-DD') as today,
         cast(extract(timezone from current_timestamp) as integer) / 60 as offset_minutes`,
  // now() and unix_timestamp() are the same statement time: their difference is the session's offset.
  mysql: `select unix_timestamp() as unix_now, cast(now() as char) as wall_now, cast(curdate() as char) as today`,
  mssql: `select sysdatetimeoffset() as now, convert(char(10), sysdatetime(), 23) as today,
         datepart(tzoffset, sysdatetimeoffset()) as offset_minutes`,
  sqlite: `select strftime('%Y-%m-%dT%H:%M:%fZ', 'now') as now, date('now') as today, 0 as offset_minutes`,
};

/**
 * The database's own clock when a read begins: rows changed from then on are read next time.
 * The database's clock, not ours, because `:since` is compared with the database's timestamps;
 * its zone's offset, because a column without a zone holds the session zone's wall clock.
 */
export async function databaseClock(db: Knex, client: SqlClient): Promise<DatabaseClock> {
  const [row] = await queryRows(db, 'clock', CLOCK[client], {});
  if (!row) throw new Error('the database clock answered no row');
  const today = String(row.today ?? '').slice(0, 10);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(today)) throw new Error(`the database date answered ${String(row.today)}`);
  if (client === 'mysql') {
    const unix = Number(row.unix_now);
    const wall = Date.parse(`${String(row.wall_now).replace(' ', 'T')}Z`);
    if (!Number.isFinite(unix) || Number.isNaN(wall))
      throw new Error(`the database clock answered ${String(row.unix_now)} / ${String(row.wall_now)}`);
    return {
      now: new Date(unix * 1000).toISOString(),
      offsetMinutes: Math.round((wall - unix * 1000) / 60_000),
      today,
    };
  }
  const value = row.now;
  const date = value instanceof Date ? value : new Date(String(value));
  const offsetMinutes = Number(row.offset_minutes);
  if (Number.isNaN(date.getTime()) || !Number.isFinite(offsetMinutes))
    throw new Error(`the database clock answered ${String(value)} / ${String(row.offset_minutes)}`);
  return { now: date.toISOString(), offsetMinutes, today };
}

/**
 * `:since` as text every driver sends as it is (a JS Date would be sent in the process's zone,
 * and a column without a zone drops the offset): the instant `sinceMs` as the database session's
 * wall clock, which is what a column without a zone holds and how the database reads a literal
 * for a column with one. PostgreSQL also gets the offset (kept for `timestamptz`, ignored for
 * `timestamp`); SQL Server gets ISO 8601 with a `T` (language neutral for `datetime`).
 *
 * The wall clock uses the smaller of the two offsets (at `sinceMs` and now): when the clocks went
 * back in between (daylight saving time ends), rows written after that carry wall times earlier
 * than `sinceMs`'s, and are still read; when they went forward, nothing was written in the gap.
 */
export function sinceBinding(
  client: SqlClient,
  sinceMs: number,
  offsetAtSince: number,
  offsetNow: number,
): string {
  const offset = Math.min(offsetAtSince, offsetNow);
  const wall = new Date(sinceMs + offset * 60_000).toISOString();
  switch (client) {
    case 'pg':
      return `${wall.slice(0, 10)} ${wall.slice(11, 23)}${formatOffset(offsetAtSince)}`;
    case 'mssql':
      return wall.slice(0, 23);
    case 'mysql':
    case 'sqlite':
      // Whole seconds, rounded down: CURRENT_TIMESTAMP text has none, and earlier is only a re-read.
      return `${wall.slice(0, 10)} ${wall.slice(11, 19)}`;
  }
}

function formatOffset(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  return `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

/** The day of an instant in an IANA zone, as YYYY-MM-DD. */
export function dayIn(zone: string, iso: string): string {
  return new Intl.DateTimeFormat('en-CA', {
    timeZone: zone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(new Date(iso));
}

export function readMarkReceipt(mark: SqlReadMark): ReadReceipt {
  return asReadReceipt(JSON.stringify({ sql: mark }));
}

/** The mark of a receipt this adapter wrote; null for anything else (a first read, another adapter's). */
export function parseReadMark(receipt: ReadReceipt | null | undefined): SqlReadMark | null {
  if (!receipt) return null;
  try {
    const parsed = JSON.parse(receipt) as { sql?: Partial<SqlReadMark> };
    const { mark, fullAt, offsetMinutes, day } = parsed.sql ?? {};
    if (typeof mark !== 'string' || typeof fullAt !== 'string') return null;
    if (Number.isNaN(Date.parse(mark)) || Number.isNaN(Date.parse(fullAt))) return null;
    const out: SqlReadMark = { mark, fullAt };
    if (typeof offsetMinutes === 'number' && Number.isFinite(offsetMinutes))
      out.offsetMinutes = offsetMinutes;
    if (typeof day === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(day)) out.day = day;
    return out;
  } catch {
    return null;
  }
}
