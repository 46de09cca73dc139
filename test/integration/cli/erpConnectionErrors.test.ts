import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeConfigFile } from '../../../src/config.js';
import { startSandbox, type Sandbox } from '../../../src/sandbox/index.js';
import { runCli, STACK_TRACE } from '../../support/cli.js';
import { createTestDatabase, type TestDatabase } from '../../support/sqlDatabases.js';

let sandbox: Sandbox;
let dir: string;
let maria: TestDatabase;
const user = `erp_sync_pw${process.pid}`;
const password = `pw-${randomBytes(12).toString('hex')}`;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: 'demo' });
  dir = mkdtempSync(join(tmpdir(), 'erp-sync-erp-errors-'));
  maria = await createTestDatabase('mysql');
  await maria.db.raw(`create user '${user}'@'%' identified by '${password}'`);
  await maria.db.raw(`grant select on \`${maria.connection.database}\`.* to '${user}'@'%'`);
});

afterAll(async () => {
  await maria?.db.raw(`drop user if exists '${user}'@'%'`).catch(() => undefined);
  await maria?.drop();
  await sandbox?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function config(name: string, connection: Record<string, unknown>, client = 'pg'): string {
  return writeConfigFile(join(dir, `${name}.yaml`), {
    erp: { type: 'sql', client, connection, queries: { stock: 'select 1 as sku, 1 as quantity' } },
    store: { path: join(dir, `${name}.db`) },
  });
}

const CASES = [
  {
    what: 'a PostgreSQL that refuses the connection',
    config: () => config('refused', { host: '127.0.0.1', port: 1, user: 'erp_sync', database: 'erp' }),
    line: () =>
      'erp-sync: erp_unavailable: the ERP database (pg 127.0.0.1:1/erp as erp_sync) is unavailable while connecting: connect ECONNREFUSED 127.0.0.1:1',
  },
  {
    what: 'a PostgreSQL role that does not exist',
    config: () => config('role', { host: '127.0.0.1', port: 5432, user: 'no_such_role', database: 'test' }),
    line: () =>
      'erp-sync: erp_auth: the ERP database (pg 127.0.0.1:5432/test as no_such_role) refused the login while connecting: role "no_such_role" does not exist',
  },
  {
    what: 'a MariaDB user that does not exist',
    config: () =>
      config('user', { host: '127.0.0.1', port: 3306, user: 'no_such_user', database: 'test' }, 'mysql'),
    line: () =>
      "erp-sync: erp_auth: the ERP database (mysql 127.0.0.1:3306/test as no_such_user) refused the login while connecting: Access denied for user 'no_such_user'@'127.0.0.1' (using password: YES)",
  },
  {
    what: 'a MariaDB user with another password',
    config: () =>
      config(
        'password',
        { host: '127.0.0.1', port: 3306, user, database: maria.connection.database },
        'mysql',
      ),
    line: () =>
      `erp-sync: erp_auth: the ERP database (mysql 127.0.0.1:3306/${maria.connection.database} as ${user}) refused the login while connecting: Access denied for user '${user}'@'127.0.0.1' (using password: YES)`,
  },
];

describe('an ERP database that cannot be used reads as one line', () => {
  it.each(CASES)(
    '$what: run-once, start and check name the database and the reason, never the password',
    async (c) => {
      const file = c.config();
      // The wrong password for the MariaDB user that exists; a password for the others, never printed either.
      const env = {
        CMS_BASE_URL: sandbox.url,
        CMS_API_KEY: sandbox.keys.primary,
        ERP_DB_PASSWORD: `${password}-not`,
        REDIS_URL: 'redis://127.0.0.1:6379',
      };
      for (const args of [['run-once'], ['start']]) {
        const result = await runCli([...args, '--config', file], env);
        expect(result.code, `${args[0]}: ${result.stderr}`).toBe(1);
        expect(result.stderr, args[0]).toBe(`${c.line()}\n`);
        expect(result.stdout).toBe('');
      }
      const check = await runCli(['check', '--config', file], env);
      expect(check.code).toBe(1);
      expect(check.stdout).toContain(`FAIL ERP: ${c.line().replace('erp-sync: ', '')}\n`);
      for (const output of [check.stdout, check.stderr]) {
        expect(output).not.toMatch(STACK_TRACE);
        expect(output).not.toContain('node_modules');
        expect(output).not.toContain(password);
      }
    },
  );
});
