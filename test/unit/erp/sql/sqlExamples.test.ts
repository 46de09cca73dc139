import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../src/config.js';

const env = { CMS_BASE_URL: 'http://127.0.0.1:8787/api/v2', CMS_API_KEY: 'k', ERP_DB_PASSWORD: 'pw' };

describe('the SQL example configurations', () => {
  it.each([
    ['config/sql-pg.example.yaml', 'pg', ['stock', 'prices', 'knownSku', 'events']],
    ['config/sql-mysql.example.yaml', 'mysql', ['stock', 'prices', 'knownSku', 'events']],
    ['config/sql-mssql.example.yaml', 'mssql', ['stock', 'prices', 'knownSku']],
    ['config/sql-sqlite.example.yaml', 'sqlite', ['stock', 'prices']],
  ])('%s loads with the current schema', (file, client, queries) => {
    const config = loadConfig({ file, env });
    expect(config.erp.type).toBe('sql');
    if (config.erp.type !== 'sql') return;
    expect(config.erp.client).toBe(client);
    expect(Object.keys(config.erp.queries).sort()).toEqual([...queries].sort());
    expect(config.erp.connection.password).toBe('pw');
  });

  it("resolves a SQLite file against the configuration file's folder, like every path there", () => {
    const config = loadConfig({ file: 'config/sql-sqlite.example.yaml', env });
    expect(config.erp.type === 'sql' && config.erp.connection.filename).toBe(resolve('data/erp.sqlite'));
  });
});
