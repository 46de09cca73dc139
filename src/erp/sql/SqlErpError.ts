import { ErpSyncError, type ErrorDetails } from '../../domain/errors.js';
import { ErpUnavailableError } from '../ErpUnavailableError.js';

/** The database cannot be reached, or refused for a passing reason (deadlock, timeout): retried. */
export class SqlUnavailableError extends ErpUnavailableError {}

/** A query the database refuses for good (syntax, unknown table or column): a person must fix it. */
export class SqlQueryError extends ErpSyncError {
  constructor(message: string, details: ErrorDetails = {}, options?: { cause?: unknown }) {
    super('erp_query', message, details, options);
  }
}

interface DriverError {
  code?: unknown;
  errno?: unknown;
  number?: unknown;
  name?: unknown;
  message?: unknown;
}

const RETRYABLE_CODES = new Set([
  // network (node, tedious)
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEOUT',
  'ESOCKET',
  'ECONNCLOSED',
  // PostgreSQL: serialization failure, deadlock, too many connections, shutting down, cannot connect now
  '40001',
  '40P01',
  '53300',
  '57P01',
  '57P02',
  '57P03',
  '57014',
  // MySQL / MariaDB
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'ER_LOCK_DEADLOCK',
  'ER_LOCK_WAIT_TIMEOUT',
  'ER_CON_COUNT_ERROR',
  'ER_SERVER_SHUTDOWN',
  'ER_QUERY_TIMEOUT',
  'ER_QUERY_INTERRUPTED',
  // SQLite
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
]);
/** SQL Server error numbers: deadlock victim, lock timeout, database unavailable. */
const RETRYABLE_MSSQL_NUMBERS = new Set([1205, 1222, 4060, 40613, 40501, 49918]);

/** True when the error is a connection failure, a timeout, a deadlock or a serialization failure. */
export function isTransientSqlError(error: unknown): boolean {
  const e = error as DriverError | null;
  if (!e || typeof e !== 'object') return false;
  if (e.name === 'KnexTimeoutError') return true;
  const code = typeof e.code === 'string' ? e.code : undefined;
  if (code && (RETRYABLE_CODES.has(code) || code.startsWith('08'))) return true;
  if (typeof e.number === 'number' && RETRYABLE_MSSQL_NUMBERS.has(e.number)) return true;
  if (
    typeof e.message === 'string' &&
    /Connection terminated|connection is closed|Cannot enqueue|socket hang up/i.test(e.message)
  )
    return true;
  return false;
}

/** Two inserts of the same unique key: the second finds the first (idempotent order import). */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as DriverError | null;
  if (!e || typeof e !== 'object') return false;
  return (
    e.code === '23505' ||
    e.code === 'ER_DUP_ENTRY' ||
    e.code === 'SQLITE_CONSTRAINT_UNIQUE' ||
    e.code === 'SQLITE_CONSTRAINT_PRIMARYKEY' ||
    e.number === 2627 ||
    e.number === 2601
  );
}

/**
 * The project's error for a driver error, naming what was being done. The message is the
 * driver's first line only: drivers never print the password, and the connection settings are
 * never part of what we add.
 */
export function toSqlError(error: unknown, doing: string): ErpSyncError {
  if (error instanceof ErpSyncError) return error;
  const e = error as DriverError | null;
  const first = String(e?.message ?? error)
    .split('\n')[0]!
    .slice(0, 500);
  const code =
    typeof e?.code === 'string' ? e.code : typeof e?.number === 'number' ? String(e.number) : undefined;
  const details = code ? { driverCode: code } : {};
  if (isTransientSqlError(error)) {
    return new SqlUnavailableError(`the ERP database is unavailable while ${doing}: ${first}`, details, {
      cause: error,
    });
  }
  return new SqlQueryError(`the ERP database refused ${doing}: ${first}`, details, { cause: error });
}
