import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeConfigFile } from '../../../src/config.js';
import { openStore } from '../../../src/store/index.js';
import { runCli, PROJECT_ROOT, STACK_TRACE } from '../../support/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'erp-sync-usage-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const KEY = 'cms_usage_key_never_printed';
const API = { CMS_BASE_URL: 'http://127.0.0.1:9/api/v2', CMS_API_KEY: KEY };

describe('usage errors exit 64, not 1 like a failed pipeline', () => {
  it(
    'for an unknown command or option, an empty --only and an unknown rejects --pipeline',
    { timeout: 60_000 },
    async () => {
      const cases = [
        ['nosuch'],
        ['run-once', '--nosuch'],
        ['run-once', '--only', ''],
        ['run-once', '--only', ' , '],
        ['run-once', '--only', 'stock,nosuch'],
        ['rejects', '--pipeline', 'nosuch'],
        ['links', '--limit', '0'],
      ];
      const results = await Promise.all(cases.map((args) => runCli(args, API)));
      results.forEach((result, i) => {
        expect({ args: cases[i], code: result.code }).toEqual({ args: cases[i], code: 64 });
        expect(result.stderr).toMatch(/^error: /m);
        expect(result.stderr).not.toMatch(STACK_TRACE);
      });
      expect(results[2]!.stderr).toContain('name at least one pipeline');
      expect(results[5]!.stderr).toMatch(/Allowed choices are catalog, products, orders, stock/);
      expect((await runCli(['--help'])).code).toBe(0);
    },
  );
});

describe('check and status with a configuration in another folder', () => {
  const deployment = join(dir, 'deployment');
  const elsewhere = join(dir, 'elsewhere');
  mkdirSync(join(deployment, 'erp'), { recursive: true });
  mkdirSync(elsewhere, { recursive: true });
  const configFile = join(deployment, 'erp-sync.yaml');
  writeConfigFile(configFile, {
    erp: { type: 'file', path: './erp' },
    store: { path: './data/erp-sync.db' },
  });

  it('resolve its paths against its folder, and never create a store', { timeout: 60_000 }, async () => {
    const check = await runCli(['check', '-c', configFile], API, { cwd: elsewhere });
    expect(check.stdout).toMatch(/^ok\s+ERP \(file\)/m);
    expect(check.stdout).toContain(`ok   store: ${join(deployment, 'data/erp-sync.db')} does not exist yet`);
    const status = await runCli(['status', '-c', configFile], {}, { cwd: elsewhere });
    expect(status.code).toBe(1);
    expect(status.stderr).toContain(`no store at ${join(deployment, 'data/erp-sync.db')}`);
    expect(status.stderr).not.toMatch(STACK_TRACE);
    expect(existsSync(join(deployment, 'data'))).toBe(false);
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it(
    'check names a key with a trailing space or CR in a FAIL line, never the key, and a URL with a password is never printed',
    { timeout: 60_000 },
    async () => {
      for (const apiKey of [`${KEY} `, `${KEY}\r`]) {
        const result = await runCli(['check', '-c', configFile], { ...API, CMS_API_KEY: apiKey });
        expect(result.stdout).toMatch(
          /^FAIL configuration: .*\n\s+- api\.apiKey: has a leading or trailing space/m,
        );
        expect(result.code).toBe(78);
        expect(result.stdout + result.stderr).not.toContain(KEY);
        expect(result.stderr).not.toMatch(STACK_TRACE);
      }
      for (const args of [['check'], ['run-once']]) {
        const result = await runCli([...args, '-c', configFile], {
          CMS_API_KEY: KEY,
          CMS_BASE_URL: 'http://user:pa55word@127.0.0.1:9/api/v2',
        });
        expect(result.stdout + result.stderr).toContain('api.baseUrl: must not carry a user or password');
        expect(result.stdout + result.stderr).not.toContain('pa55word');
        expect(result.code).toBe(78);
      }
    },
  );

  it('check hints at /api/v2 when the base URL does not end in it', { timeout: 30_000 }, async () => {
    const result = await runCli(['check', '-c', configFile], { ...API, CMS_BASE_URL: 'http://127.0.0.1:9/' });
    expect(result.stdout).toMatch(/^FAIL platform API: .*hint: an API v2 base URL ends in \/api\/v2$/m);
  });
});

describe('status of a run whose process was killed', () => {
  it(
    'shows live counts while it runs, and "interrupted" once its process is gone',
    { timeout: 60_000 },
    async () => {
      const storePath = join(dir, 'killed.db');
      // A run that starts, reports progress, and is then killed with SIGKILL (no chance to finish).
      const script = [
        `import { openStore } from ${JSON.stringify(join(PROJECT_ROOT, 'src/store/index.ts'))};`,
        `const store = openStore(${JSON.stringify(storePath)});`,
        `store.runs.start('stock', {});`,
        `store.runs.recordProgress('stock', { read: 1234, sent: 500, applied: 400 });`,
        `process.stdout.write('started\\n');`,
        `setInterval(() => {}, 1000);`,
      ].join('\n');
      const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        cwd: PROJECT_ROOT,
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      await new Promise<void>((resolve) => child.stdout.on('data', () => resolve()));
      const configFile = join(dir, 'killed.yaml');
      writeConfigFile(configFile, { erp: { type: 'file', path: dir }, store: { path: storePath } });

      const running = await runCli(['status', '-c', configFile]);
      expect(running.stdout).toMatch(
        /^ {2}stock\s+running\s+started \S+\s+read 1234, sent 500, applied 400/m,
      );

      child.kill('SIGKILL');
      await new Promise((resolve) => child.once('exit', resolve));
      const killed = await runCli(['status', '--json', '-c', configFile]);
      const report = JSON.parse(killed.stdout) as {
        pipelines: { pipeline: string; status: string; counts: unknown }[];
      };
      expect(report.pipelines.find((p) => p.pipeline === 'stock')).toMatchObject({
        status: 'interrupted',
        counts: { read: 1234 },
      });
      const store = openStore(storePath, { mustExist: true });
      try {
        expect(store.runs.last('stock')?.status).toBe('running'); // status judges; it writes nothing
      } finally {
        store.close();
      }
    },
  );
});

describe('warnings on a terminal', () => {
  it('print as readable lines on a terminal and as JSON lines otherwise', { timeout: 60_000 }, async () => {
    const configFile = join(dir, 'tty.yaml');
    writeConfigFile(configFile, {
      api: { retries: 0 },
      erp: { type: 'file', path: dir },
      store: { path: './tty.db' },
      log: { level: 'warn' },
    });
    const command = [process.execPath, '--import', import.meta.resolve('tsx'), 'src/cli/main.ts']
      .concat(['run-once', '--only', 'stock', '-c', configFile])
      .map((word) => `'${word}'`)
      .join(' ');
    // script(1) gives the command a terminal; its output is what the person would see.
    const tty = await new Promise<string>((resolve) => {
      const child = spawn('script', ['-qec', command, '/dev/null'], {
        cwd: PROJECT_ROOT,
        env: { PATH: process.env.PATH ?? '', TERM: 'dumb', ...API },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      child.once('exit', () => resolve(out));
    });
    expect(tty).toMatch(/^warning \[api\]: |^warning: could not read the account/m);
    expect(tty).not.toContain('{"level"');
    const piped = await runCli(['run-once', '--only', 'stock', '-c', configFile], API);
    expect(piped.stderr).toMatch(/^\{"level":40,.*could not read the account/m);
  });

  it('are short readable lines, not JSON', async () => {
    const { formatLogLine } = await import('../../../src/createLogger.js');
    const line = JSON.stringify({
      level: 40,
      time: '2026-01-01T00:00:00.000Z',
      app: 'erp-sync',
      module: 'erp-file',
      ignored: ['stock-old.csv'],
      msg: 'several stock files: using stock.csv',
    });
    expect(formatLogLine(`${line}\n`)).toBe(
      'warning [erp-file]: several stock files: using stock.csv (ignored: ["stock-old.csv"])\n',
    );
  });
});
