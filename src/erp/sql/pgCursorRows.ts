import type { Knex } from 'knex';
import Cursor from 'pg-cursor';
import { acquireRaw, watchConnection } from './rawConnection.js';

interface PgConnection {
  query(cursor: Cursor): Cursor;
}

/**
 * Rows of one PostgreSQL query through a server-side cursor, read `batch` at a time, each read racing
 * the connection's own failure: pg-query-stream (and knex's stream on it) never settles when the
 * server drops the connection mid-read (its destroy waits for a close that cannot come).
 */
export async function* pgCursorRows(
  db: Knex,
  sql: string,
  bindings: readonly unknown[],
  batch: number,
): AsyncIterable<Record<string, unknown>[]> {
  const { connection, release } = await acquireRaw<PgConnection>(db);
  const watch = watchConnection(connection);
  const cursor = connection.query(new Cursor(sql, [...bindings]));
  try {
    for (;;) {
      const rows = (await Promise.race([cursor.read(batch), watch.failed])) as Record<string, unknown>[];
      if (rows.length === 0) return;
      yield rows;
    }
  } catch (error) {
    watch.markBroken(error);
    throw error;
  } finally {
    // An abandoned read closes its cursor; a close that fails breaks the connection.
    if (!watch.broken)
      await Promise.race([cursor.close(), watch.failed]).catch((e: unknown) => watch.markBroken(e));
    watch.stop();
    await release(watch.broken);
  }
}
