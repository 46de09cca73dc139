import knexFactory, { type Knex } from 'knex';
import type { Logger } from '../../logger.js';
import type { SqlClient, SqlErpConfig } from './sqlConfigSchema.js';

/** The knex client (driver) behind each of our client names. */
export const KNEX_CLIENTS: Record<SqlClient, string> = {
  pg: 'pg',
  mysql: 'mysql2',
  mssql: 'mssql',
  sqlite: 'better-sqlite3',
};

/** A pool of connections to the ERP database; the driver is loaded only here (the adapter loads lazily). */
export function connectSql(config: SqlErpConfig, logger?: Logger): Knex {
  const db = knexFactory({
    // knex prints to the console by default, with the driver error's stack frames: we log the first
    // line only. A failed connection attempt is thrown to the caller too, which reports it once
    // (naming the database): here it is debug.
    log: {
      warn: (message: unknown) => {
        const knex = firstLine(message);
        if (/^Acquire connection error/.test(knex)) logger?.debug({ knex }, 'database driver warning');
        else logger?.warn({ knex }, 'database driver warning');
      },
      error: (message: unknown) => logger?.warn({ knex: firstLine(message) }, 'database driver error'),
      deprecate: (message: unknown) =>
        logger?.debug({ knex: firstLine(message) }, 'database driver deprecation'),
      debug: (message: unknown) => logger?.debug({ knex: firstLine(message) }, 'database driver'),
    },
    client: KNEX_CLIENTS[config.client],
    connection: connectionSettings(config),
    pool: config.client === 'sqlite' ? { min: 1, max: 1 } : { min: config.pool.min, max: config.pool.max },
    acquireConnectionTimeout: config.connectTimeoutMs,
    useNullAsDefault: config.client === 'sqlite',
    // knex prefixes a failed query's error message with its SQL, the values spliced in by default
    // (customer names and e-mails in a log line); without them, and taken off below.
    compileSqlOnError: false,
  });
  db.on('query-error', (error: unknown, query: { sql?: unknown }) => restoreDriverMessage(error, query.sql));
  return db;
}

/** The driver's own message, without the `<sql> - ` knex put before it: the reason is what matters. */
function restoreDriverMessage(error: unknown, sql: unknown): void {
  if (!(error instanceof Error) || typeof sql !== 'string') return;
  const prefix = `${sql} - `;
  if (error.message.startsWith(prefix)) error.message = error.message.slice(prefix.length);
}

function firstLine(message: unknown): string {
  return String(message).split('\n')[0]!.slice(0, 500);
}

/** A knex instance that only builds SQL text (no connection): init-staging and query-level tests. */
export function sqlBuilder(client: SqlClient): Knex {
  return knexFactory({ client: KNEX_CLIENTS[client], useNullAsDefault: client === 'sqlite' });
}

export function connectionSettings(config: SqlErpConfig): Knex.StaticConnectionConfig {
  const c = config.connection;
  switch (config.client) {
    case 'pg':
      return {
        host: c.host,
        port: c.port,
        user: c.user,
        password: c.password,
        database: c.database,
        ssl: c.ssl ? { rejectUnauthorized: true } : false,
        connectionTimeoutMillis: config.connectTimeoutMs,
        statement_timeout: config.queryTimeoutMs,
        application_name: 'erp-sync',
      } as Knex.PgConnectionConfig;
    case 'mysql':
      return {
        host: c.host,
        port: c.port,
        user: c.user,
        password: c.password,
        database: c.database,
        ssl: c.ssl ? {} : undefined,
        connectTimeout: config.connectTimeoutMs,
        // BIGINT and DECIMAL as text: no silent rounding past 2^53 (the mappers parse and check).
        supportBigNumbers: true,
        bigNumberStrings: true,
        charset: 'utf8mb4',
      } as Knex.MySql2ConnectionConfig;
    case 'mssql':
      return {
        server: c.host,
        port: c.port,
        user: c.user,
        password: c.password,
        database: c.database,
        connectionTimeout: config.connectTimeoutMs,
        requestTimeout: config.queryTimeoutMs,
        options: { encrypt: c.ssl, trustServerCertificate: !c.ssl, appName: 'erp-sync' },
      } as Knex.MsSqlConnectionConfig;
    case 'sqlite':
      return { filename: c.filename ?? ':memory:' } as Knex.BetterSqlite3ConnectionConfig;
  }
}
