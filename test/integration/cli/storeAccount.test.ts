import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeConfigFile } from '../../../src/config.js';
import { startSandbox, type Sandbox } from '../../../src/sandbox/index.js';
import { openStore } from '../../../src/store/index.js';
import { runCli, PROJECT_ROOT, STACK_TRACE } from '../../support/cli.js';

let first: Sandbox;
let second: Sandbox;
let dir: string;
let configFile: string;
let storePath: string;

beforeAll(async () => {
  [first, second] = await Promise.all([
    startSandbox({ port: 0, seed: 'demo', logLevel: 'silent' }),
    startSandbox({ port: 0, seed: 'demo', logLevel: 'silent' }),
  ]);
  dir = mkdtempSync(join(tmpdir(), 'erp-sync-account-'));
  mkdirSync(join(dir, 'erp'));
  cpSync(join(PROJECT_ROOT, 'config/sample/stock.csv'), join(dir, 'erp/stock.csv'));
  configFile = join(dir, 'erp-sync.yaml');
  storePath = join(dir, 'erp-sync.db');
  writeConfigFile(configFile, { erp: { type: 'file', path: './erp' }, store: { path: './erp-sync.db' } });
});

afterAll(async () => {
  await Promise.all([first.close(), second.close()]);
  rmSync(dir, { recursive: true, force: true });
});

const env = (sandbox: Sandbox, key: 'primary' | 'secondary' = 'primary') => ({
  CMS_BASE_URL: sandbox.url,
  CMS_API_KEY: sandbox.keys[key],
});
const writes = (sandbox: Sandbox) => sandbox.requestLog.entries().filter((e) => e.method !== 'GET').length;

describe('one store, one account', () => {
  it(
    'binds the store at its first run, follows its company to a new address, refuses another company until store reset',
    { timeout: 120_000 },
    async () => {
      const bound = await runCli(['run-once', '--only', 'stock', '-c', configFile], env(first));
      expect(bound.code, bound.stderr).toBe(0);
      const status = JSON.parse((await runCli(['status', '--json', '-c', configFile])).stdout) as {
        account: { baseUrl: string; companyName: string };
      };
      expect(status.account).toMatchObject({ baseUrl: first.url, companyName: 'Demo Retail SRL' });

      // The same company at another base URL (a second sandbox with the same company: a proxy or a
      // new host name would look alike): the store goes on and records the new address.
      const moved = await runCli(['run-once', '--only', 'stock', '-c', configFile], env(second));
      expect(moved.code, moved.stderr).toBe(0);
      expect(moved.stderr).toContain('answers at a new address');
      const after = JSON.parse((await runCli(['status', '--json', '-c', configFile])).stdout) as {
        account: { baseUrl: string; previousBaseUrl: string };
      };
      expect(after.account).toMatchObject({ baseUrl: second.url, previousBaseUrl: first.url });

      // The same platform with another company's key: refused too, also as a dry run and by orders retry.
      first.requestLog.clear();
      for (const args of [['run-once'], ['run-once', '--dry-run'], ['orders', 'retry']]) {
        const result = await runCli([...args, '-c', configFile], env(first, 'secondary'));
        expect({ args, code: result.code }).toEqual({ args, code: 65 });
        expect(result.stderr).toContain('not to the account "Second Shop SRL" (company 2)');
        expect(result.stderr).not.toMatch(STACK_TRACE);
      }
      expect(writes(first)).toBe(0);

      const check = await runCli(['check', '-c', configFile], env(second, 'secondary'));
      expect(check.stdout).toMatch(/^FAIL store: the store .* belongs to the account "Demo Retail SRL"/m);
      expect(check.code).toBe(65);

      // store reset asks; without a terminal and without --yes it deletes nothing.
      const unconfirmed = await runCli(['store', 'reset', '-c', configFile]);
      expect(unconfirmed.code).toBe(64);
      expect(unconfirmed.stderr).toMatch(/store reset deletes .*erp-sync\.db .*"Demo Retail SRL".*add --yes/);
      expect(existsSync(storePath)).toBe(true);
      const reset = await runCli(['store', 'reset', '--yes', '-c', configFile]);
      expect(reset.code, reset.stderr).toBe(0);
      expect(existsSync(storePath)).toBe(false);

      first.requestLog.clear();
      const rebound = await runCli(['run-once', '--only', 'stock', '-c', configFile], env(first));
      expect(rebound.code, rebound.stderr).toBe(0);
      expect(writes(first)).toBeGreaterThan(0);
      const store = openStore(storePath, { mustExist: true });
      try {
        expect(store.account.get()).toMatchObject({
          baseUrl: first.url,
          companyId: '1',
          taxId: 'RO12345678',
        });
        expect(store.account.get()?.previousBaseUrl).toBeNull();
      } finally {
        store.close();
      }
    },
  );

  it('a dry run on a new store checks the account but binds nothing', { timeout: 60_000 }, async () => {
    const fresh = join(dir, 'dry.yaml');
    writeConfigFile(fresh, { erp: { type: 'file', path: './erp' }, store: { path: './dry.db' } });
    const dry = await runCli(['run-once', '--only', 'stock', '--dry-run', '-c', fresh], env(first));
    expect(dry.code, dry.stderr).toBe(0);
    const store = openStore(join(dir, 'dry.db'), { mustExist: true });
    try {
      expect(store.account.get()).toBeUndefined();
    } finally {
      store.close();
    }
  });
});
