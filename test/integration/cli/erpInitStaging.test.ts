import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeConfigFile } from '../../../src/config.js';
import { runCli } from '../../support/cli.js';
import { createTestDatabase, type TestDatabase } from '../../support/sqlDatabases.js';

describe('erp-sync erp init-staging', () => {
  let database: TestDatabase;
  let dir: string;
  beforeAll(async () => {
    database = await createTestDatabase('pg');
    dir = mkdtempSync(join(tmpdir(), 'erp-sync-staging-'));
  });
  afterAll(async () => {
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('prints the staging tables of each database, without a configuration or a connection', async () => {
    for (const client of ['pg', 'mysql', 'mssql', 'sqlite']) {
      const run = await runCli(['erp', 'init-staging', '--client', client]);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toContain(`-- erp-sync staging tables for ${client}`);
      expect(run.stdout.match(/create table/gi)).toHaveLength(3);
    }
  });

  it('refuses what it cannot do with exit 64 and a line saying why', async () => {
    const none = await runCli(['erp', 'init-staging']);
    expect(none.code).toBe(64);
    expect(none.stderr).toMatch(/say which database: --client pg\|mysql\|mssql\|sqlite/);
    const bad = await runCli(['erp', 'init-staging', '--client', 'oracle']);
    expect(bad.code).toBe(64);
    expect(bad.stderr).toMatch(/--client must be one of pg, mysql, mssql, sqlite, got "oracle"/);
    const apply = await runCli(['erp', 'init-staging', '--client', 'pg', '--apply']);
    expect(apply.code).toBe(64);
    expect(apply.stderr).toMatch(/--apply needs a configuration with erp.type: sql/);
  });

  it('creates the configured tables with --apply, and says so when they are already there', async () => {
    const file = writeConfigFile(join(dir, 'config.yaml'), {
      erp: {
        type: 'sql',
        client: 'pg',
        connection: database.connection,
        staging: { orders: { table: 'web_orders', columns: { platform_order_id: 'web_id' } } },
      },
      store: { path: join(dir, 'store.db') },
    });
    const first = await runCli(['erp', 'init-staging', '--config', file, '--apply']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toBe('created web_orders, erp_sync_order_lines, erp_sync_order_changes\n');
    expect(await database.db.schema.hasColumn('web_orders', 'web_id')).toBe(true);
    const again = await runCli(['erp', 'init-staging', '--config', file, '--apply']);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/^staging tables already there/);
  });
});
