import type { Db } from './openDatabase.js';
import type { Statement } from 'better-sqlite3';

const caches = new WeakMap<Db, Map<string, Statement>>();

/** A prepared statement per SQL text, prepared once per database (dynamic list queries reuse them). */
export function stmt<P extends unknown[] | object = unknown[], R = unknown>(
  db: Db,
  sql: string,
): Statement<P, R> {
  let cache = caches.get(db);
  if (!cache) {
    cache = new Map();
    caches.set(db, cache);
  }
  let s = cache.get(sql);
  if (!s) {
    s = db.prepare(sql);
    cache.set(sql, s);
  }
  return s as unknown as Statement<P, R>;
}
