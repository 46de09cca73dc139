import type { Db } from './openDatabase.js';
import type { Statement } from 'better-sqlite3';
import type { Page } from '../http/listQuery.js';

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

/**
 * `UPDATE table SET col = value, … [, updated_at = at] WHERE id = ?` for the given columns (names come
 * from the sandbox's own field lists, never from a request).
 */
export function updateRow(
  db: Db,
  table: string,
  id: number,
  columns: Record<string, unknown>,
  updatedAt?: string,
): void {
  const sets = Object.keys(columns).map((n) => `${n} = @${n}`);
  if (updatedAt !== undefined) sets.push('updated_at = @__at');
  if (sets.length === 0) return;
  stmt(db, `UPDATE ${table} SET ${sets.join(', ')} WHERE id = @__id`).run({
    ...columns,
    ...(updatedAt !== undefined ? { __at: updatedAt } : {}),
    __id: id,
  });
}

/**
 * One page of `SELECT columns FROM from WHERE where ORDER BY orderBy` and how many rows the clause
 * matches in all (`meta.total`). `params` are named (`@company`…); `@limit` and `@offset` are added.
 */
export function pageOf<R>(
  db: Db,
  q: { columns: string; from: string; where: string; orderBy: string; params: Record<string, unknown> },
  page: Page,
): { rows: R[]; total: number } {
  const total =
    stmt<[object], { n: number }>(db, `SELECT COUNT(*) AS n FROM ${q.from} WHERE ${q.where}`).get(q.params)
      ?.n ?? 0;
  const rows = stmt<[object], R>(
    db,
    `SELECT ${q.columns} FROM ${q.from} WHERE ${q.where} ORDER BY ${q.orderBy} LIMIT @limit OFFSET @offset`,
  ).all({ ...q.params, limit: page.perPage, offset: page.offset });
  return { rows, total };
}
