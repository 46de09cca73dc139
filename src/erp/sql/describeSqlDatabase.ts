import type { SqlErpConfig } from './sqlConfigSchema.js';

const DEFAULT_PORTS = { pg: 5432, mysql: 3306, mssql: 1433 } as const;

/**
 * Which database, for errors, logs and `check`: the client, host, port, database and user
 * (`pg 127.0.0.1:5432/erp as erp_sync`), or the SQLite file. Never the password.
 */
export function describeSqlDatabase(config: Pick<SqlErpConfig, 'client' | 'connection'>): string {
  const c = config.connection;
  if (config.client === 'sqlite') return `sqlite ${c.filename ?? ':memory:'}`;
  const port = c.port ?? DEFAULT_PORTS[config.client];
  return `${config.client} ${c.host}:${port}/${c.database ?? ''}${c.user ? ` as ${c.user}` : ''}`;
}
