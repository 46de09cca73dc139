import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../../src/config.js';
import { sqlBuilder } from '../../../../src/erp/sql/connectSql.js';
import { parameterProblems, queryParameters } from '../../../../src/erp/sql/namedParameters.js';
import { isTransientSqlError, isUniqueViolation, toSqlError } from '../../../../src/erp/sql/SqlErpError.js';
import { sqlErpConfigSchema } from '../../../../src/erp/sql/sqlConfigSchema.js';
import { stagingDdl } from '../../../../src/erp/sql/stagingTables.js';

const api = { baseUrl: 'http://127.0.0.1:1/api/v2', apiKey: 'k' };

describe('named parameters of integrator queries', () => {
  it('finds :names outside literals, comments and PostgreSQL casts', () => {
    const sql = `select x::date, '10:30 :notme' as t, "col:odd" from t -- :comment
      where a > :since /* :block */ and b = :since and c = :after`;
    expect(queryParameters(sql)).toEqual({ named: ['since', 'after'], positional: false });
  });

  it('names a parameter the query cannot have, and refuses positional placeholders', () => {
    expect(parameterProblems('select * from s where d > :sinse', ['since'])).toEqual([
      'unknown parameter :sinse (it can use :since)',
    ]);
    expect(parameterProblems('select * from s where a = ?', [])[0]).toMatch(/positional "\?" placeholders/);
    expect(parameterProblems("select '?' as q, a from s where b = :sku", ['sku'])).toEqual([]);
  });

  it('reports bad queries at configuration time, naming the key', () => {
    expect(() =>
      parseConfig({
        api,
        erp: {
          type: 'sql',
          client: 'pg',
          connection: { database: 'erp' },
          queries: { stock: 'select sku, qty from s where changed > :since' },
        },
      }),
    ).toThrow(/erp\.queries\.stock: unknown parameter :since \(it can use :today\)/);
    expect(() => parseConfig({ api, erp: { type: 'sql', client: 'sqlite', connection: {} } })).toThrow(
      /erp\.connection\.filename: is required for client sqlite/,
    );
    expect(() =>
      parseConfig({ api, erp: { type: 'sql', client: 'pg', connection: { database: 'erp' }, querys: {} } }),
    ).toThrow(/erp\.querys: unknown key/);
  });
});

describe('SQL Server at the query-building level (no server in CI)', () => {
  const mssql = sqlBuilder('mssql');

  it('binds named parameters as @p placeholders, never spliced into the text', () => {
    const evil = "x'; drop table items; --";
    const native = mssql
      .raw('select sku, qty from stock where changed > :since and sku = :sku', { since: evil, sku: evil })
      .toSQL()
      .toNative();
    expect(native.sql).toBe('select sku, qty from stock where changed > @p0 and sku = @p1');
    expect(native.bindings).toEqual([evil, evil]);
  });

  it('creates staging tables with identity keys, DECIMAL money and the unique keys imports rely on', () => {
    const ddl = stagingDdl(
      mssql,
      sqlErpConfigSchema().parse({ type: 'sql', client: 'mssql', connection: {} }).staging,
    );
    expect(ddl).toContain('CREATE TABLE [erp_sync_orders] ([id] int identity(1,1) not null primary key');
    expect(ddl).toContain('[total] decimal(14, 2) not null');
    expect(ddl).toContain(
      'CREATE UNIQUE INDEX [erp_sync_orders_platform_uq] ON [erp_sync_orders] ([platform_order_id])',
    );
    expect(ddl).toContain(
      'CREATE UNIQUE INDEX [erp_sync_order_changes_seq_uq] ON [erp_sync_order_changes] ([platform_order_id], [seq])',
    );
  });

  it("uses the integrator's table and column names, quoted as identifiers", () => {
    const staging = sqlErpConfigSchema().parse({
      type: 'sql',
      client: 'mssql',
      connection: {},
      staging: { orders: { table: 'web_comenzi', columns: { platform_order_id: 'id_comanda_web' } } },
    }).staging;
    expect(stagingDdl(mssql, staging)).toContain('ON [web_comenzi] ([id_comanda_web])');
    const insert = mssql('web_comenzi').insert({ id_comanda_web: 5 }).toSQL().toNative();
    expect(insert.sql).toBe('insert into [web_comenzi] ([id_comanda_web]) values (@p0)');
  });
});

describe('driver errors by kind', () => {
  it.each([
    ['connection refused', { code: 'ECONNREFUSED' }],
    ['PostgreSQL serialization failure', { code: '40001' }],
    ['PostgreSQL deadlock', { code: '40P01' }],
    ['PostgreSQL admin shutdown', { code: '57P01' }],
    ['PostgreSQL connection exception class', { code: '08006' }],
    ['MySQL deadlock', { code: 'ER_LOCK_DEADLOCK' }],
    ['MySQL lost connection', { code: 'PROTOCOL_CONNECTION_LOST' }],
    ['SQL Server deadlock victim', { number: 1205 }],
    ['SQL Server timeout', { code: 'ETIMEOUT' }],
    ['SQLite busy', { code: 'SQLITE_BUSY' }],
    ['pool timeout', { name: 'KnexTimeoutError', message: 'Knex: Timeout acquiring a connection' }],
  ])('%s is retryable', (_, error) => {
    expect(isTransientSqlError(error)).toBe(true);
    expect(toSqlError(Object.assign(new Error('boom'), error), 'the stock query')).toMatchObject({
      code: 'erp_unavailable',
      retryable: true,
      fatal: false,
    });
  });

  it.each([
    ['syntax error', { code: '42601' }],
    ['unknown column', { code: 'ER_BAD_FIELD_ERROR' }],
    ['SQL Server invalid object', { number: 208 }],
  ])('%s is a refused query naming what was done, not retried and not fatal', (_, error) => {
    expect(isTransientSqlError(error)).toBe(false);
    const mapped = toSqlError(
      Object.assign(new Error('relation "x" does not exist\nLINE 1: ...'), error),
      'the stock query',
    );
    expect(mapped).toMatchObject({ code: 'erp_query', retryable: false, fatal: false });
    expect(mapped.message).toBe('the ERP database refused the stock query: relation "x" does not exist');
  });

  it.each([
    ['PostgreSQL insufficient privilege', { code: '42501' }],
    ['MySQL table access denied', { code: 'ER_TABLEACCESS_DENIED_ERROR' }],
    ['MySQL database access denied', { code: 'ER_DBACCESS_DENIED_ERROR' }],
    ['SQL Server permission denied on an object', { number: 229 }],
    ['SQLite read-only file', { code: 'SQLITE_READONLY' }],
  ])('%s is a missing privilege naming the database, not retried and not fatal', (_, error) => {
    const mapped = toSqlError(
      Object.assign(new Error('permission denied for sequence erp_sync_orders_id_seq'), error),
      'importing order 7 into erp_sync_orders',
      'pg 127.0.0.1:5432/erp as erp_sync',
    );
    expect(mapped).toMatchObject({ code: 'erp_permission', retryable: false, fatal: false });
    expect(mapped.message).toBe(
      'the ERP database (pg 127.0.0.1:5432/erp as erp_sync) refused importing order 7 into erp_sync_orders: a privilege is missing: permission denied for sequence erp_sync_orders_id_seq',
    );
  });

  it.each([
    ['PostgreSQL unknown role', { code: '28000' }],
    ['PostgreSQL wrong password', { code: '28P01' }],
    ['MySQL access denied', { code: 'ER_ACCESS_DENIED_ERROR' }],
    ['SQL Server login failed', { number: 18456 }],
    ['tedious login failed', { code: 'ELOGIN' }],
  ])('%s is a refused login (fatal)', (_, error) => {
    const mapped = toSqlError(Object.assign(new Error('role "x" does not exist'), error), 'connecting', 'db');
    expect(mapped).toMatchObject({ code: 'erp_auth', retryable: false, fatal: true });
    expect(mapped.message).toBe(
      'the ERP database (db) refused the login while connecting: role "x" does not exist',
    );
  });

  it('recognises a unique-key violation on every database', () => {
    for (const error of [
      { code: '23505' },
      { code: 'ER_DUP_ENTRY' },
      { code: 'SQLITE_CONSTRAINT_UNIQUE' },
      { number: 2627 },
      { number: 2601 },
    ]) {
      expect(isUniqueViolation(error)).toBe(true);
    }
    expect(isUniqueViolation({ code: '23503' })).toBe(false);
  });
});

describe('the database password', () => {
  it('comes from env ERP_DB_PASSWORD, and a password in the file is refused', async () => {
    const { mkdtempSync, writeFileSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { loadConfig } = await import('../../../../src/config.js');
    const dir = mkdtempSync(join(tmpdir(), 'erp-sync-sqlcfg-'));
    try {
      const file = join(dir, 'config.yaml');
      const erp = 'erp:\n  type: sql\n  client: pg\n  connection:\n    database: erp\n    user: erp_sync\n';
      writeFileSync(file, erp);
      const env = { CMS_BASE_URL: api.baseUrl, CMS_API_KEY: 'k', ERP_DB_PASSWORD: 'from-env-Pa55' };
      const config = loadConfig({ file, env });
      expect(config.erp.type === 'sql' && config.erp.connection.password).toBe('from-env-Pa55');
      writeFileSync(file, `${erp}    password: in-file-Pa55\n`);
      let message = '';
      try {
        loadConfig({ file, env });
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toMatch(/erp\.connection\.password: set it with env ERP_DB_PASSWORD, not in the file/);
      expect(message).not.toContain('in-file-Pa55');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
