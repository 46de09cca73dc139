import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_KEYS } from '../../src/sandbox/index.js';
import { openStore } from '../../src/store/index.js';
import { runCli, type CliResult } from '../support/cli.js';
import { eventually } from '../../dev/daemonProcess.js';
import { startPrivateRedis, type PrivateRedis } from '../../dev/redisServer.js';

/** A PATH with nothing on it: no redis-server (the child is started by node's absolute path). */
let emptyPath: string;
beforeAll(() => {
  emptyPath = mkdtempSync(join(tmpdir(), 'erp-sync-demo-path-'));
});
afterAll(() => rmSync(emptyPath, { recursive: true, force: true }));

const METRICS_LINE = /^ {3}metrics {4}(http:\/\/127\.0\.0\.1:\d+\/metrics)$/m;
const ORDERS_ONCE = /2 polls later: outbox\/orders holds (\d+) file\(s\) \((\d+) \+ 3\): each order once/;

interface WatchedRun {
  result: CliResult;
  /** /metrics fetched after the orders step, while the demo was still running. */
  metrics: { status: number; text: string };
}

/** `erp-sync demo ARGS`; once the narration reached the orders step, fetches the printed /metrics URL. */
async function runWatchedDemo(
  args: string[],
  env: Record<string, string>,
  whileRunning: (stdout: string, signal: (name: NodeJS.Signals) => void) => Promise<void> = async () =>
    undefined,
): Promise<WatchedRun> {
  let probe: Promise<WatchedRun['metrics']> | undefined;
  const result = await runCli(['demo', ...args], env, {
    timeoutMs: 120_000,
    onStdout: (stdout, signal) => {
      const url = METRICS_LINE.exec(stdout)?.[1];
      if (probe || !url || !ORDERS_ONCE.test(stdout)) return;
      probe = (async () => {
        const response = await fetch(url);
        const metrics = { status: response.status, text: await response.text() };
        await whileRunning(stdout, signal);
        return metrics;
      })();
    },
  });
  expect(probe, `the demo never reached the orders step:\n${result.stdout}\n${result.stderr}`).toBeDefined();
  return { result, metrics: await probe! };
}

function expectDaemonNarration({ result, metrics }: WatchedRun): void {
  expect(result.stderr).not.toMatch(/Error:|at .*\.ts:\d+/);
  // The narration is the output: no daemon warning as a JSON line in the middle of it.
  expect(result.stdout + result.stderr).not.toMatch(/"level":40/);
  expect(result.code, result.stderr).toBe(0);
  expect(result.stdout).toMatch(/^ {3}dashboard {2}http:\/\/127\.0\.0\.1:\d+\/queues$/m);
  // The start runs: the platform's 40 new orders in the outbox, the file's stock on the platform.
  expect(result.stdout).toMatch(/daemon: orders run: 120 read, 40 to import/);
  expect(result.stdout).toContain('outbox/orders: 40 order file(s)');
  expect(result.stdout).toContain('DEMO-0001 on the platform: 13 (stock.csv: 13)');
  // The file change reached the platform, read back through the API.
  expect(result.stdout).toContain('stock.csv now says DEMO-0001 7 (was 13)');
  expect(result.stdout).toMatch(
    /DEMO-0001 on the platform \(GET \/products\): before 13, after 7, [\d.]+ s after/,
  );
  // Three new platform orders in the outbox, and later polls bring none of them twice.
  expect(result.stdout).toMatch(/(outbox\/orders\/\d+\.json(, )?){3}: [\d.]+ s after the orders were placed/);
  expect(result.stdout).toMatch(ORDERS_ONCE);
  const [, total, before] = ORDERS_ONCE.exec(result.stdout)!;
  expect(Number(total)).toBe(Number(before) + 3);
  // The ops server answered while the daemon ran, with the runs it had counted.
  expect(metrics.status).toBe(200);
  expect(metrics.text).toMatch(/^erp_sync_runs_total\{pipeline="stock",status="ok"\} ([2-9]|[1-9]\d+)$/m);
  expect(result.stdout).toContain('Stopped; the temporary folders are removed.');
  for (const key of Object.values(DEMO_KEYS)) expect(result.stdout + result.stderr).not.toContain(key);
}

describe('erp-sync demo with Redis: the daemon', () => {
  let redis: PrivateRedis | undefined;
  afterAll(async () => redis?.close());

  it('uses REDIS_URL under its own prefix, moves stock and orders, and leaves no key behind', async () => {
    redis = await startPrivateRedis();
    const client = redis.client();
    let keysWhileRunning = 0;
    const run = await runWatchedDemo(['--for', '1'], { REDIS_URL: redis.url }, async (stdout) => {
      const prefix = /BullMQ prefix (\S+)\)/.exec(stdout)![1]!;
      keysWhileRunning = (await client.keys(`${prefix}:*`)).length;
    });
    expect(run.result.stdout).toContain(`Redis: REDIS_URL (${redis.url})`);
    expectDaemonNarration(run);
    expect(keysWhileRunning).toBeGreaterThan(0);
    expect(await client.keys('*')).toEqual([]);
  }, 150_000);

  it('starts a private redis-server from PATH and on Ctrl-C stops it and removes its folder', async () => {
    let redisAlive = false;
    const run = await runWatchedDemo([], {}, async (stdout, signal) => {
      const pid = Number(/\(pid (\d+)\)/.exec(stdout)![1]);
      redisAlive = processAlive(pid);
      signal('SIGINT');
    });
    expectDaemonNarration(run);
    const { stdout } = run.result;
    const [, pid, folder] =
      /a private redis-server [\d.]+ \(pid (\d+)\) on 127\.0\.0\.1:\d+, folder (\S+);/.exec(stdout)!;
    expect(redisAlive).toBe(true);
    expect(processAlive(Number(pid))).toBe(false);
    expect(existsSync(folder!)).toBe(false);
    const erpDir = /ERP drop folder \(a copy of config\/sample\) (\S+)/.exec(stdout)![1]!;
    expect(existsSync(erpDir)).toBe(false);
    expect(stdout).toContain('The daemon keeps running until Ctrl-C');
  }, 150_000);
});

describe('erp-sync demo killed with SIGKILL', () => {
  it('leaves neither its private redis-server nor its temporary folders behind', async () => {
    let started: { pid: number; port: number; redisDir: string; workDir: string } | undefined;
    const result = await runCli(
      ['demo'],
      {},
      {
        timeoutMs: 90_000,
        onStdout: (stdout, signal) => {
          const redis =
            /a private redis-server [\d.]+ \(pid (\d+)\) on 127\.0\.0\.1:(\d+), folder (\S+);/.exec(stdout);
          const erp = /ERP drop folder \(a copy of config\/sample\) (\S+)/.exec(stdout);
          if (started || !redis || !erp) return;
          started = {
            pid: Number(redis[1]),
            port: Number(redis[2]),
            redisDir: redis[3]!,
            workDir: dirname(erp[1]!),
          };
          // No handler runs: only the janitor can clean up now.
          signal('SIGKILL');
        },
      },
    );
    expect(
      started,
      `the demo never said which Redis it started:\n${result.stdout}\n${result.stderr}`,
    ).toBeDefined();
    const { pid, port, redisDir, workDir } = started!;
    try {
      expect(result.signal).toBe('SIGKILL');
      expect(workDir).toMatch(/erp-sync-demo-/);
      await eventually('the private redis-server gone', () => !processAlive(pid), 15_000, 100);
      await eventually(
        'its folders removed',
        () => !existsSync(redisDir) && !existsSync(workDir),
        5_000,
        100,
      );
    } finally {
      // Only if the janitor failed, and only the redis-server this demo started (its pid on its port).
      if (processAlive(pid) && ownRedis(pid, port)) process.kill(pid, 'SIGKILL');
      for (const dir of [redisDir, workDir]) rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('erp-sync demo without Redis: inline', () => {
  it('says in one line how to get Redis, then runs every pipeline and ships an order', async () => {
    const result = await runCli(['demo'], { PATH: emptyPath }, { timeoutMs: 90_000 });
    expect(result.stderr).not.toMatch(/Error:|at .*\.ts:\d+/);
    expect(result.code).toBe(0);
    expect(result.stdout.split('\n')[0]).toMatch(
      /^No Redis for the daemon \(no redis-server on PATH\): install Redis >= 6\.2 \(`apt install redis-server`.*or set REDIS_URL; meanwhile the pipelines run inline\.$/,
    );
    expect(result.stdout.split('\n').filter((line) => /redis/i.test(line))).toHaveLength(1);
    for (const pipeline of ['catalog', 'orders', 'stock', 'prices', 'feedback', 'erp-orders']) {
      expect(result.stdout).toMatch(new RegExp(`^${pipeline}\\s+\\d+`, 'm'));
    }
    expect(result.stdout).toMatch(/platform now says: order \d+ shipped, AWB \S+ \(fan\), invoice \S+/);
    expect(result.stdout).toContain('not on the platform');
    expect(result.stdout).toContain('vat_rate must be between 0 and 100');
    // the second run: every good row unchanged, so nothing is sent (prices makes no request at all)
    expect(result.stdout).toMatch(/^stock\s+38\s+35\s+0\s+0\s+1\s+2\s/m);
    expect(result.stdout).toMatch(/^prices\s+36\s+35\s+0\s+0\s+0\s+1\s+0\s/m);
    expect(result.stdout).toContain('duplicate of line 2');
    // The work folder is removed at the end: the closing hint must not send the user there.
    const done = result.stdout.slice(result.stdout.indexOf('== Done.'));
    const folders = [...done.matchAll(/(\/\S*erp-sync-demo-\w+)/g)].map((m) => m[1]!);
    expect(folders.filter((folder) => !existsSync(folder))).toEqual([]);
  });

  it('starts a new store on every run, also in a kept --dir', { timeout: 200_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'erp-sync-demo-dir-'));
    try {
      const urls: string[] = [];
      for (let run = 0; run < 2; run += 1) {
        // A REDIS_URL that answers nothing (a privileged port) and no redis-server: inline.
        const env = { PATH: emptyPath, REDIS_URL: 'redis://:hunter2@127.0.0.1:1' };
        const result = await runCli(['demo', '--dir', dir], env, { timeoutMs: 90_000 });
        expect(result.code, result.stderr).toBe(0);
        expect(result.stdout).toMatch(
          /^No Redis for the daemon \(REDIS_URL \(redis:\/\/:\*\*\*@127\.0\.0\.1:1\): not reachable; no redis-server on PATH\)/,
        );
        expect(result.stdout + result.stderr).not.toContain('hunter2');
        expect(result.stdout).toContain(`erp-sync status --config ${join(dir, 'erp-sync.yaml')}`);
        const store = openStore(join(dir, 'erp-sync.db'), { mustExist: true });
        try {
          urls.push(store.account.get()!.baseUrl);
        } finally {
          store.close();
        }
      }
      // Each demo had its own sandbox (another address), and its own store bound to it.
      expect(new Set(urls).size).toBe(2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a --for that is not a positive number as a usage error', async () => {
    const result = await runCli(['demo', '--for', 'soon'], { PATH: emptyPath });
    expect(result.code).toBe(64);
    expect(result.stderr).toContain('SECONDS must be a positive number');
    expect(result.stdout).toBe('');
  });
});

/** The process is a redis-server on that port (Linux: its command line says so). */
function ownRedis(pid: number, port: number): boolean {
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    return /redis-server/.test(cmdline[0] ?? '') && cmdline.includes(String(port));
  } catch {
    return false;
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
