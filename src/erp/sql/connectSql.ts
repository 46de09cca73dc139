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
  return knexFactory({
    // knex prints to the console by default; its messages never carry the connection settings.
    log: {
      warn: (message: unknown) => logger?.warn({ knex: String(message) }, 'database driver warning'),
      error: (message: unknown) => logger?.warn({ knex: String(message) }, 'database driver error'),
      deprecate: (message: unknown) =>
        logger?.debug({ knex: String(message) }, 'database driver deprecation'),
      debug: (message: unknown) => logger?.debug({ knex: String(message) }, 'database driver'),
    },
    client: KNEX_CLIENTS[config.client],
    connection: connectionSettings(config),
    pool: config.client === 'sqlite' ? { min: 1, max: 1 } : { min: config.pool.min, max: config.pool.max },
    acquireConnectionTimeout: config.connectTimeoutMs,
    useNullAsDefault: config.client === 'sqlite',
  });
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
