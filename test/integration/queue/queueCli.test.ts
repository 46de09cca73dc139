import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue, UnrecoverableError, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeConfigFile } from '../../../src/config.js';
import type { DaemonStatus } from '../../../src/queue/daemonStatus.js';
import { openStore } from '../../../src/store/index.js';
import { runCli } from '../../support/cli.js';
import { freePort, startPrivateRedis, type PrivateRedis } from '../../../dev/redisServer.js';

let redis: PrivateRedis;
let dir: string;
let configFile: string;
const PREFIX = 'clitest';

beforeAll(async () => {
  redis = await startPrivateRedis();
  dir = mkdtempSync(join(tmpdir(), 'erp-sync-queue-cli-'));
  configFile = writeConfigFile(join(dir, 'config.yaml'), {
    erp: { type: 'file', path: dir },
    store: { path: join(dir, 'store.db') },
    redis: { prefix: PREFIX },
    schedules: { catalog: 'off', stock: '*/10 * * * * *' },
  });
  // status only looks at an existing store.
  openStore(join(dir, 'store.db')).close();
});

afterAll(async () => {
  await redis.close();
  rmSync(dir, { recursive: true, force: true });
});

const env = (): Record<string, string> => ({
  REDIS_URL: redis.url,
  CMS_BASE_URL: 'http://127.0.0.1:9/api/v2',
  CMS_API_KEY: 'k',
});

describe('Redis in erp-sync check', () => {
  it('accepts Redis >= 6.2 with noeviction and refuses an eviction policy, naming it', async () => {
    const ok = await runCli(['check', '--config', configFile, '--json'], env());
    const line = (JSON.parse(ok.stdout) as { what: string; ok: boolean; details: string }[]).find((l) =>
      l.what.startsWith('Redis'),
    );
    expect(line).toMatchObject({ ok: true });
    expect(line?.details).toMatch(/version 7\.\d+\.\d+, maxmemory-policy noeviction/);

    const client = redis.client();
    await client.config('SET', 'maxmemory-policy', 'allkeys-lru');
    try {
      const bad = await runCli(['check', '--config', configFile], env());
      expect(bad.code).toBe(1);
      expect(bad.stdout).toMatch(
        /^FAIL Redis \(daemon queues\): .*maxmemory-policy is allkeys-lru; set it to noeviction/m,
      );
    } finally {
      await client.config('SET', 'maxmemory-policy', 'noeviction');
    }
  }, 60_000);

  it('says Redis is not reachable when nothing listens', async () => {
    const port = await freePort();
    const result = await runCli(['check', '--config', configFile], {
      ...env(),
      REDIS_URL: `redis://:s3cret@127.0.0.1:${port}`,
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      /^FAIL Redis \(daemon queues\): Redis at redis:\/\/:\*\*\*@127\.0\.0\.1:\d+ is not reachable/m,
    );
    expect(result.stdout).not.toContain('s3cret');
  }, 60_000);
});

describe('erp-sync status (daemon part)', () => {
  it('shows queue counts, schedules with their next run, and "off"', async () => {
    const result = await runCli(['status', '--config', configFile, '--json'], env());
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as { daemon: DaemonStatus };
    expect(report.daemon.reachable).toBe(true);
    expect(report.daemon.paused).toBeNull();
    expect(report.daemon.queues.runs!.counts).toMatchObject({ waiting: 0, active: 0, failed: 0 });
    expect(report.daemon.pipelines.catalog).toMatchObject({
      schedule: 'off',
      nextRun: null,
      lagSeconds: null,
    });
    const next = Date.parse(report.daemon.pipelines.stock.nextRun ?? '');
    expect(next).toBeGreaterThan(Date.now() - 1000);
    expect(next).toBeLessThanOrEqual(Date.now() + 11_000);
  }, 60_000);
});

describe('erp-sync status when Redis refuses a command half-way', () => {
  it('says why in the daemon part and still prints the rest', async () => {
    // A user that may not list clients: the worker count (CLIENT LIST) fails after the queue counts.
    const admin = new Redis(redis.url);
    await admin.call(
      'ACL',
      'SETUSER',
      'nolist',
      'on',
      '>hunter2-secret',
      '~*',
      '&*',
      '+@all',
      '-client|list',
    );
    await admin.quit();
    const url = redis.url.replace('redis://', 'redis://nolist:hunter2-secret@');
    const result = await runCli(['status', '--config', configFile, '--json'], { ...env(), REDIS_URL: url });
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as { daemon: DaemonStatus };
    expect(report.daemon.reachable).toBe(false);
    expect(report.daemon.error).toMatch(/NOPERM/);
    expect(report.daemon.pipelines.stock.schedule).toBe('*/10 * * * * *');
    expect(result.stdout + result.stderr).not.toContain('hunter2-secret');
  }, 60_000);
});

describe('erp-sync jobs and sync without a daemon', () => {
  it('lists a failed job with its reason, retries it by id, and says which ids are not failed jobs', async () => {
    const connection = { host: '127.0.0.1', port: redis.port, maxRetriesPerRequest: null };
    const queue = new Queue('runs', { connection, prefix: PREFIX });
    const worker = new Worker(
      'runs',
      async () => {
        throw new UnrecoverableError('api_validation: refused for the test');
      },
      { connection, prefix: PREFIX },
    );
    const failed = new Promise((resolve) => worker.once('failed', resolve));
    const job = await queue.add('stock-scan', {
      pipeline: 'stock',
      full: false,
      trigger: 'manual',
      requestedAt: '',
    });
    await failed;
    await worker.close();

    const list = await runCli(['jobs', 'failed', '--config', configFile], env());
    expect(list.stdout).toContain(`runs/${job.id}  stock-scan`);
    expect(list.stdout).toContain('api_validation: refused for the test');

    const retry = await runCli(['jobs', 'retry', job.id!, 'nope-1', '--config', configFile], env());
    expect(retry.stdout).toContain(`retried 1 job(s): runs/${job.id}`);
    expect(retry.stdout).toContain('not among the failed jobs: nope-1');
    expect(retry.code).toBe(1);
    expect(await job.getState()).toBe('waiting');
    await queue.obliterate({ force: true });
    await queue.close();
  }, 60_000);

  it('sync enqueues a manual run, says no daemon is running, and refuses an unknown pipeline', async () => {
    const result = await runCli(['sync', 'stock', '--full', '--json', '--config', configFile], env());
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('no daemon is running on this Redis');
    const { enqueued } = JSON.parse(result.stdout) as { enqueued: { pipeline: string; id: string }[] };
    expect(enqueued).toEqual([{ pipeline: 'stock', id: expect.stringMatching(/^manual-stock-/) }]);
    const queue = new Queue('runs', { connection: { host: '127.0.0.1', port: redis.port }, prefix: PREFIX });
    const job = await queue.getJob(enqueued[0]!.id);
    expect(job?.data).toMatchObject({ pipeline: 'stock', full: true, trigger: 'manual' });
    await queue.obliterate({ force: true });
    await queue.close();

    const unknown = await runCli(['sync', 'stocks', '--config', configFile], env());
    expect(unknown.code).toBe(64);
    expect(unknown.stderr).toContain('unknown pipeline stocks');
  }, 60_000);
});
