import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { StoreConfig } from '../../../src/config/storeConfigSchema.js';
import { runCli } from '../../support/cli.js';
import { tempDir } from '../../support/tempDir.js';
import { TEST_POSTGRES_URL, TestStores } from '../../support/testStores.js';

const PASSWORD = 'pg-password-never-shown';
const stores = new TestStores('postgres');
const cleanups: (() => void)[] = [];
afterEach(() => {
  stores.cleanup();
  while (cleanups.length) cleanups.pop()!();
});

function configFor(location: StoreConfig): string {
  if (location.type !== 'postgres') throw new Error('a postgres location');
  const { dir, cleanup } = tempDir('erp-sync-pg-cli-');
  cleanups.push(cleanup);
  const file = join(dir, 'erp-sync.yaml');
  writeFileSync(
    file,
    [
      'erp:',
      '  type: file',
      `  path: ${dir}`,
      'store:',
      '  type: postgres',
      `  url: ${location.url}`,
      `  schema: ${location.schema}`,
      '  passwordEnv: STORE_PG_PASSWORD',
    ].join('\n'),
  );
  return file;
}

describe('commands on a PostgreSQL store', () => {
  it(
    'look without creating it, list what it holds, and reset it, never showing the password',
    { timeout: 90_000 },
    async () => {
      const location = stores.location();
      if (location.type !== 'postgres') throw new Error('a postgres location');
      const config = configFor(location);
      const env = { STORE_PG_PASSWORD: PASSWORD };
      const where = `${TEST_POSTGRES_URL} (schema ${location.schema})`;

      const before = await runCli(['--config', config, 'rejects'], env);
      expect(before.code).toBe(1);
      expect(before.stderr).toContain(`no store at ${where}`);

      const store = stores.open({}, location);
      store.rejects.record({ pipeline: 'stock', key: 'A-1', reason: 'quantity must be at least 0, got -3' });
      store.close();

      const [rejects, status] = await Promise.all([
        runCli(['--config', config, 'rejects', '--json'], env),
        runCli(['--config', config, 'status', '--json'], { ...env, REDIS_URL: 'redis://127.0.0.1:6379' }),
      ]);
      expect(rejects.code).toBe(0);
      expect(JSON.parse(rejects.stdout)).toEqual([expect.objectContaining({ key: 'A-1', count: 1 })]);
      expect(status.code, status.stderr).toBe(0);
      expect((JSON.parse(status.stdout) as { store: string }).store).toBe(where);

      const reset = await runCli(['--config', config, 'store', 'reset', '--yes'], env);
      expect(reset.code, reset.stderr).toBe(0);
      expect(reset.stdout).toContain(`deleted ${where}`);
      const after = await runCli(['--config', config, 'rejects'], env);
      expect(after.stderr).toContain(`no store at ${where}`);

      for (const output of [before, rejects, status, reset, after])
        expect(output.stdout + output.stderr).not.toContain(PASSWORD);
    },
  );
});
