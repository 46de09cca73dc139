import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeConfigFile } from '../../../src/config.js';
import { startSandbox, type Sandbox } from '../../../src/sandbox/index.js';
import { startPrivateRedis, type PrivateRedis } from '../../../dev/redisServer.js';
import { runCli, PROJECT_ROOT, STACK_TRACE } from '../../support/cli.js';

/** One sandbox, two of its companies: account a (primary key) and account b (secondary key). */
let sandbox: Sandbox;
let redis: PrivateRedis;
let dir: string;
let configFile: string;
let env: Record<string, string>;

beforeAll(async () => {
  [sandbox, redis] = await Promise.all([
    startSandbox({ port: 0, seed: 'demo', logLevel: 'silent' }),
    startPrivateRedis(),
  ]);
  dir = mkdtempSync(join(tmpdir(), 'erp-sync-account-flag-'));
  for (const name of ['a', 'b']) {
    mkdirSync(join(dir, name));
    cpSync(join(PROJECT_ROOT, 'config/sample/stock.csv'), join(dir, name, 'stock.csv'));
  }
  configFile = writeConfigFile(join(dir, 'erp-sync.yaml'), {
    redis: { prefix: 'flag' },
    accounts: [
      { name: 'a', api: { baseUrl: sandbox.url, apiKeyEnv: 'A_KEY' }, erp: { type: 'file', path: './a' } },
      { name: 'b', api: { baseUrl: sandbox.url, apiKeyEnv: 'B_KEY' }, erp: { type: 'file', path: './b' } },
    ],
  });
  env = { A_KEY: sandbox.keys.primary, B_KEY: sandbox.keys.secondary, REDIS_URL: redis.url };
});

afterAll(async () => {
  await Promise.all([sandbox.close(), redis.close()]);
  rmSync(dir, { recursive: true, force: true });
});

const cli = (...args: string[]) => runCli(['--config', configFile, ...args], env);
const storeOf = (name: string) => join(dir, 'data', `erp-sync-${name}.db`);
const stockWrites = () =>
  sandbox.requestLog.entries().filter((e) => e.method === 'PATCH' && e.path.endsWith('/products/stock/bulk'));

describe('--account', () => {
  it('run-once runs the named account only, with its own key and store; without it, names the accounts', async () => {
    const none = await cli('run-once', '--only', 'stock');
    expect(none.code).toBe(64);
    expect(none.stderr).toContain(
      'the configuration names several accounts (a, b): choose one with --account NAME',
    );
    expect(none.stderr).not.toMatch(STACK_TRACE);
    const unknown = await cli('run-once', '--account', 'c');
    expect(unknown.code).toBe(64);
    expect(unknown.stderr).toContain('no account "c" in the configuration; its accounts: a, b');
    expect(stockWrites()).toHaveLength(0);

    sandbox.requestLog.clear();
    const a = await cli('run-once', '--account', 'a', '--only', 'catalog,stock', '--json');
    expect(a.code, a.stderr).toBe(0);
    expect(existsSync(storeOf('a'))).toBe(true);
    expect(existsSync(storeOf('b'))).toBe(false);
    const keys = new Set(stockWrites().map((entry) => entry.key));
    expect([...keys]).toEqual(['primary']);

    sandbox.requestLog.clear();
    // The option before the command works the same.
    const b = await runCli(
      ['--account', 'b', '--config', configFile, 'run-once', '--only', 'catalog,stock'],
      env,
    );
    expect(b.code, b.stderr).toBe(0);
    expect(existsSync(storeOf('b'))).toBe(true);
    expect([...new Set(stockWrites().map((entry) => entry.key))]).toEqual(['secondary']);
  });

  it('status covers every account without --account, one with it', async () => {
    const all = await cli('status');
    expect(all.code, all.stderr).toBe(0);
    expect(all.stdout).toMatch(/^== account a\n/);
    expect(all.stdout).toContain('\n== account b\n');
    const both = JSON.parse((await cli('status', '--json')).stdout) as { account: string; status: unknown }[];
    expect(both.map((entry) => entry.account)).toEqual(['a', 'b']);
    const one = await cli('status', '--account', 'b', '--json');
    expect(one.code, one.stderr).toBe(0);
    const report = JSON.parse(one.stdout) as {
      account: { companyName: string } | null;
      pipelines: unknown[];
    };
    // b's store is bound to the secondary company, a's to the primary one.
    const a = JSON.parse((await cli('status', '--account', 'a', '--json')).stdout) as typeof report;
    expect(report.account).not.toBeNull();
    expect(report.account).not.toEqual(a.account);
  });

  it("sync enqueues in the named account's queues only (its own BullMQ prefix)", async () => {
    const queueOf = (prefix: string) =>
      new Queue('runs', { connection: { host: '127.0.0.1', port: redis.port }, prefix });
    const [qa, qb] = [queueOf('flag-a'), queueOf('flag-b')];
    try {
      const none = await cli('sync', 'stock');
      expect(none.code).toBe(64);
      expect(none.stderr).toContain('choose one with --account NAME');
      const done = await cli('sync', 'stock', '--account', 'b', '--json');
      expect(done.code, done.stderr).toBe(0);
      expect(await qb.getJobCounts('waiting')).toEqual({ waiting: 1 });
      expect(await qa.getJobCounts('waiting')).toEqual({ waiting: 0 });
      const jobs = await cli('jobs', 'failed', '--json');
      expect(jobs.code, jobs.stderr).toBe(0);
      expect(JSON.parse(jobs.stdout)).toEqual([]);
    } finally {
      await Promise.all([qa.close(), qb.close()]);
    }
  });

  it('check covers every account without --account, each line naming it', async () => {
    const checked = await cli('check');
    expect(checked.code, checked.stdout + checked.stderr).toBe(0);
    expect(checked.stdout).toMatch(/^ok {3}account a: configuration/m);
    expect(checked.stdout).toMatch(/^ok {3}account b: platform API/m);
    expect(checked.stdout).not.toContain(sandbox.keys.secondary);
  });

  it("rejects and store reset act on the named account's store only", async () => {
    const none = await cli('rejects');
    expect(none.code).toBe(64);
    expect(none.stderr).toContain('choose one with --account NAME');
    const rejects = await cli('rejects', '--account', 'a', '--json');
    expect(rejects.code, rejects.stderr).toBe(0);
    expect((JSON.parse(rejects.stdout) as unknown[]).length).toBeGreaterThan(0);

    const reset = await cli('store', 'reset', '--account', 'b', '--yes');
    expect(reset.code, reset.stderr).toBe(0);
    expect(existsSync(storeOf('b'))).toBe(false);
    expect(existsSync(storeOf('a'))).toBe(true);
  });

  it('accounts lists the names, stores and prefixes, never a key', async () => {
    const listed = await cli('accounts');
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain(`a  ${sandbox.url}  erp file  store ${storeOf('a')}  prefix flag-a`);
    expect(listed.stdout).toContain('prefix flag-b');
    expect(listed.stdout).not.toContain(sandbox.keys.primary);
  });
});
