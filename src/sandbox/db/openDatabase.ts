import Database from 'better-sqlite3';
import type { Database as Db } from 'better-sqlite3';
import { SCHEMA_SQL } from './schema.js';

export type { Database as Db } from 'better-sqlite3';

/** Opens (and migrates) the sandbox database: ':memory:' or a file, WAL when file-backed. */
export function openDatabase(path: string): Db {
  const db = new Database(path);
  if (path !== ':memory:') {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('busy_timeout = 5000');
  }
  // SQLite's LIKE and lower() only fold ASCII; search must be case-insensitive for every letter.
  db.function('icontains', { deterministic: true }, (haystack: unknown, needle: unknown) =>
    typeof haystack === 'string' && typeof needle === 'string'
      ? Number(haystack.toLocaleLowerCase('en').includes(needle))
      : 0,
  );
  db.exec(SCHEMA_SQL);
  return db;
}
