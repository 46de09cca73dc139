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

/** erp-sync's role lacks a privilege (a table, a sequence): the same for every item until it is granted. */
export class SqlPermissionError extends ErpSyncError {
  constructor(message: string, details: ErrorDetails = {}, options?: { cause?: unknown }) {
    super('erp_permission', message, details, options);
  }
}

/** The database refuses the login (unknown role or user, wrong password): fatal until a person fixes it. */
export class SqlLoginError extends ErpSyncError {
  constructor(message: string, details: ErrorDetails = {}, options?: { cause?: unknown }) {
    super('erp_auth', message, details, options);
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

/** PostgreSQL's insufficient_privilege, MySQL's access denied to a table, column, routine or database. */
const PERMISSION_CODES = new Set([
  '42501',
  'ER_TABLEACCESS_DENIED_ERROR',
  'ER_COLUMNACCESS_DENIED_ERROR',
  'ER_SPECIFIC_ACCESS_DENIED_ERROR',
  'ER_PROCACCESS_DENIED_ERROR',
  'ER_DBACCESS_DENIED_ERROR',
  'SQLITE_READONLY',
  'SQLITE_PERM',
  'SQLITE_AUTH',
]);
/** SQL Server: permission denied on an object, a column, in the database; no access to the database. */
const PERMISSION_MSSQL_NUMBERS = new Set([229, 230, 262, 297, 916]);
/** A refused login: PostgreSQL invalid authorization or password, MySQL access denied, tedious login failed. */
const LOGIN_CODES = new Set([
  '28000',
  '28P01',
  'ER_ACCESS_DENIED_ERROR',
  'ER_ACCESS_DENIED_NO_PASSWORD_ERROR',
  'ELOGIN',
]);

function codeOf(e: DriverError): string | undefined {
  return typeof e.code === 'string' ? e.code : undefined;
}

/** True when the database refused a privilege (not the login). */
export function isPermissionSqlError(error: unknown): boolean {
  const e = error as DriverError | null;
  if (!e || typeof e !== 'object') return false;
  const code = codeOf(e);
  if (code && (PERMISSION_CODES.has(code) || code.startsWith('SQLITE_READONLY'))) return true;
  return typeof e.number === 'number' && PERMISSION_MSSQL_NUMBERS.has(e.number);
}

/** True when the database refused the login itself. */
export function isLoginSqlError(error: unknown): boolean {
  const e = error as DriverError | null;
  if (!e || typeof e !== 'object') return false;
  const code = codeOf(e);
  return (code !== undefined && LOGIN_CODES.has(code)) || e.number === 18456;
}

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
 * The project's error for a driver error, naming the database (`database`: describeSqlDatabase,
 * which holds no password) and what was being done. The rest is the driver's first line only:
 * drivers never print the password.
 */
export function toSqlError(error: unknown, doing: string, database?: string): ErpSyncError {
  if (error instanceof ErpSyncError) return error;
  const e = error as DriverError | null;
  const first = String(e?.message ?? error)
    .split('\n')[0]!
    .slice(0, 500);
  const code =
    typeof e?.code === 'string' ? e.code : typeof e?.number === 'number' ? String(e.number) : undefined;
  const details = code ? { driverCode: code } : {};
  const options = { cause: error };
  const db = database ? `the ERP database (${database})` : 'the ERP database';
  if (isLoginSqlError(error))
    return new SqlLoginError(`${db} refused the login while ${doing}: ${first}`, details, options);
  if (isPermissionSqlError(error))
    return new SqlPermissionError(
      `${db} refused ${doing}: a privilege is missing: ${first}`,
      details,
      options,
    );
  if (isTransientSqlError(error))
    return new SqlUnavailableError(`${db} is unavailable while ${doing}: ${first}`, details, options);
  return new SqlQueryError(`${db} refused ${doing}: ${first}`, details, options);
}
