import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Knex } from 'knex';
import { connectSql } from '../../src/erp/sql/connectSql.js';
import { sqlErpConfigSchema, type SqlClient, type SqlErpConfig } from '../../src/erp/sql/sqlConfigSchema.js';

/** The clients whose servers run on this machine and in CI (SQL Server is covered at query level). */
export const LIVE_CLIENTS = ['pg', 'mysql', 'sqlite'] as const satisfies readonly SqlClient[];
export type LiveClient = (typeof LIVE_CLIENTS)[number];

const SERVERS = {
  pg: { host: '127.0.0.1', port: 5432, user: 'postgres', admin: 'test' },
  mysql: { host: '127.0.0.1', port: 3306, user: 'root', admin: 'test' },
} as const;

export interface TestDatabase {
  client: LiveClient;
  /** The `erp.connection` settings of this database. */
  connection: SqlErpConfig['connection'];
  /** A knex over it, for seeding and for reading what the adapter wrote. */
  db: Knex;
  /** An adapter configuration over this database with these settings merged in. */
  erpConfig(extra: Record<string, unknown>): SqlErpConfig;
  drop(): Promise<void>;
}

let counter = 0;

/**
 * A database of its own for one test (other test files run against the same servers at the same
 * time): a new database on PostgreSQL and MariaDB, a new file for SQLite; dropped afterwards.
 */
export async function createTestDatabase(client: LiveClient): Promise<TestDatabase> {
  const name = `erp_sync_t_${process.pid}_${Date.now().toString(36)}_${++counter}`;
  let connection: SqlErpConfig['connection'];
  let cleanup: () => Promise<void>;
  if (client === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'erp-sync-sql-'));
    connection = { host: '127.0.0.1', ssl: false, filename: join(dir, `${name}.sqlite`) };
    cleanup = async () => rmSync(dir, { recursive: true, force: true });
  } else {
    const server = SERVERS[client];
    const admin = connectSql(
      config(client, {
        host: server.host,
        port: server.port,
        user: server.user,
        database: server.admin,
        ssl: false,
      }),
    );
    await admin.raw(
      client === 'pg' ? `create database "${name}"` : `create database \`${name}\` character set utf8mb4`,
    );
    await admin.destroy();
    connection = { host: server.host, port: server.port, user: server.user, database: name, ssl: false };
    cleanup = async () => {
      const again = connectSql(config(client, { ...connection, database: server.admin }));
      await again.raw(
        client === 'pg'
          ? `drop database if exists "${name}" with (force)`
          : `drop database if exists \`${name}\``,
      );
      await again.destroy();
    };
  }
  const db = connectSql(config(client, connection));
  return {
    client,
    connection,
    db,
    erpConfig: (extra) => config(client, connection, extra),
    async drop() {
      await db.destroy();
      await cleanup();
    },
  };
}

function config(
  client: SqlClient,
  connection: SqlErpConfig['connection'],
  extra: Record<string, unknown> = {},
): SqlErpConfig {
  return sqlErpConfigSchema().parse({ type: 'sql', client, connection, ...extra });
}
