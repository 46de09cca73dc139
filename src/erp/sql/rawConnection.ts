import type { Knex } from 'knex';

interface EventSource {
  once(event: 'error' | 'end', listener: (error?: Error) => void): unknown;
  removeListener(event: 'error' | 'end', listener: (error?: Error) => void): unknown;
}

interface KnexClientInternals {
  acquireConnection(): Promise<unknown>;
  releaseConnection(connection: unknown): Promise<void>;
}

/** A driver connection taken from knex's pool, to be given back (a broken one is discarded). */
export async function acquireRaw<C>(
  db: Knex,
): Promise<{ connection: C; release: (broken?: Error) => Promise<void> }> {
  const client = db.client as unknown as KnexClientInternals;
  const connection = await client.acquireConnection();
  return {
    connection: connection as C,
    async release(broken) {
      // knex's pool validates a connection by this mark before handing it out again.
      if (broken) (connection as { __knex__disposed?: unknown }).__knex__disposed = broken;
      await client.releaseConnection(connection);
    },
  };
}

export interface ConnectionWatch {
  /** Rejects when the connection errors or ends; race every read against it. */
  failed: Promise<never>;
  broken: Error | undefined;
  markBroken(error: unknown): void;
  stop(): void;
}

/**
 * Turns a connection's 'error' and 'end' events into a promise that rejects: drivers' row streams
 * (pg-query-stream, mysql2 through knex) may never settle when the server drops the connection.
 */
export function watchConnection(connection: unknown): ConnectionWatch {
  const source = connection as EventSource;
  let reject: (error: Error) => void = () => {};
  const failed = new Promise<never>((_, r) => {
    reject = r;
  });
  failed.catch(() => {});
  const watch: ConnectionWatch = {
    failed,
    broken: undefined,
    markBroken(error) {
      watch.broken ??= error instanceof Error ? error : new Error(String(error));
      reject(watch.broken);
    },
    stop() {
      source.removeListener('error', onError);
      source.removeListener('end', onEnd);
    },
  };
  const onError = (error?: Error) =>
    watch.markBroken(error ?? new Error('Connection terminated unexpectedly'));
  const onEnd = () => watch.markBroken(new Error('Connection terminated unexpectedly'));
  source.once('error', onError);
  source.once('end', onEnd);
  return watch;
}
