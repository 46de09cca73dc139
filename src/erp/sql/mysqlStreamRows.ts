import type { Knex } from 'knex';
import type { Readable } from 'node:stream';
import { drainStream } from '../drainStream.js';
import { acquireRaw, watchConnection } from './rawConnection.js';

interface MysqlConnection {
  query(sql: string, values: unknown[]): { stream(options?: { highWaterMark?: number }): Readable };
}

/**
 * Rows of one MySQL/MariaDB query as a row stream, in batches of what arrived meanwhile (one async
 * step per batch, not per row), each wait racing the connection's own failure: knex's stream over
 * mysql2 never settles when the server kills the connection mid-read.
 */
export async function* mysqlStreamRows(
  db: Knex,
  sql: string,
  bindings: readonly unknown[],
): AsyncIterable<Record<string, unknown>[]> {
  const { connection, release } = await acquireRaw<MysqlConnection>(db);
  const watch = watchConnection(connection);
  const stream = connection.query(sql, [...bindings]).stream({ highWaterMark: 500 });
  const rows = drainStream<Record<string, unknown>>(stream)[Symbol.asyncIterator]();
  try {
    for (;;) {
      const next = await Promise.race([rows.next(), watch.failed]);
      if (next.done) return;
      yield next.value;
    }
  } catch (error) {
    watch.markBroken(error);
    throw error;
  } finally {
    watch.stop();
    if (!stream.destroyed) stream.destroy();
    await release(watch.broken);
  }
}
