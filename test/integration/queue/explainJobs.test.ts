import { Queue, Worker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PushPayload } from '../../../src/queue/jobTypes.js';
import { packBatch, readPushBatch } from '../../../src/queue/packedBatch.js';
import type { SkuStory } from '../../../src/diagnostics/explainSku.js';
import { runPrices } from '../../../src/sync/push/prices.js';
import { runStock } from '../../../src/sync/push/stock.js';
import type { SyncContext } from '../../../src/sync/frame/types.js';
import { runCli } from '../../support/cli.js';
import { eventually } from '../../../dev/daemonProcess.js';
import { startPrivateRedis, type PrivateRedis } from '../../../dev/redisServer.js';
import { bulkSku, createHarness, type Harness } from '../../support/syncHarness.js';

// The harness's config names no Redis: the default prefix, on this file's private server.
const PREFIX = 'erp-sync';
let harness: Harness;
let ctx: SyncContext;
let redis: PrivateRedis;
let pushes: Queue;
let configFile: string;
let env: Record<string, string>;
const ids: Record<string, string> = {};

function payload(n: number, quantity: number, generation: number): PushPayload {
  const sku = bulkSku(n);
  return {
    batch: {
      pipeline: 'stock',
      generation,
      items: [{ key: sku, sku, hash: `q=${quantity}`, wire: { sku, quantity } }],
    },
    scanOwner: '',
  };
}

async function explain(sku: string, extra: Record<string, string> = {}) {
  const text = await runCli(['explain', 'sku', sku, '--config', configFile], { ...env, ...extra });
  const json = await runCli(['explain', 'sku', sku, '--json', '--config', configFile], { ...env, ...extra });
  return { text, code: json.code, story: JSON.parse(json.stdout) as SkuStory };
}

beforeAll(async () => {
  harness = await createHarness({ extraProducts: 5 });
  ctx = await harness.context();
  harness.writeStock([1, 2, 3, 4].map((n) => ({ sku: bulkSku(n), quantity: n * 10 })));
  harness.writePrices([1, 2, 3, 4].map((n) => ({ sku: bulkSku(n), price: 10 + n, vat_rate: 19 })));
  expect(await runStock(ctx, { full: false, dryRun: false })).toMatchObject({ applied: 4 });
  expect(await runPrices(ctx, { full: false, dryRun: false })).toMatchObject({ applied: 4 });
  // New ERP values for 2, 3 and 4: a stock run is due for each.
  harness.writeStock([1, 2, 3, 4].map((n) => ({ sku: bulkSku(n), quantity: n === 1 ? 10 : n * 10 + 5 })));
  redis = await startPrivateRedis();
  configFile = harness.configFile();
  env = {
    CMS_BASE_URL: harness.sandbox.url,
    CMS_API_KEY: harness.sandbox.keys.primary,
    REDIS_URL: redis.url,
  };
  const connection = { host: '127.0.0.1', port: redis.port };
  pushes = new Queue('pushes', { connection, prefix: PREFIX });
  const generation = ctx.store.generations.next('stock');
  // Two push jobs that fail for good: one for BULK-000003 newer than its last push, one for
  // BULK-000004 older than it (a later push superseded it).
  ids.failed = (await pushes.add('stock-push', payload(3, 35, generation), { attempts: 1 })).id!;
  ids.stale = (await pushes.add('stock-push', payload(4, 45, 0), { attempts: 1 })).id!;
  const worker = new Worker(
    'pushes',
    async () => {
      throw new Error('api_server: the platform answered 502');
    },
    { connection: { ...connection, maxRetriesPerRequest: null }, prefix: PREFIX },
  );
  try {
    await eventually('both jobs failed', async () => (await pushes.getFailedCount()) === 2, 20_000);
  } finally {
    await worker.close();
  }
  // And one waiting for a daemon, carrying BULK-000002, packed as this version queues it (the two
  // above in the object-per-item layout of the version before).
  const waiting = payload(2, 25, generation);
  ids.waiting = (
    await pushes.add('stock-push', { ...waiting, batch: packBatch(readPushBatch(waiting.batch)) })
  ).id!;
}, 60_000);

afterAll(async () => {
  await pushes.close();
  await redis.close();
  await harness.close();
});

describe('erp-sync explain sku: the jobs carrying the SKU', () => {
  it('a queued job: lists it and says the SKU will be pushed by it', async () => {
    const { text, code, story } = await explain(bulkSku(2));
    expect(code).toBe(1);
    expect(story.jobs).toMatchObject({
      read: true,
      where: `${redis.url}, prefix erp-sync`,
      scanned: 3,
      truncated: false,
      jobs: [
        {
          queue: 'pushes',
          id: ids.waiting,
          name: 'stock-push',
          state: 'waiting',
          pipeline: 'stock',
          attempts: 0,
          failedReason: null,
          items: [{ key: bulkSku(2), value: 'q=25' }],
        },
      ],
    });
    expect(story.verdict).toEqual({
      state: 'pending',
      text: `${bulkSku(2)} stock: will be pushed: queued in job pushes/${ids.waiting} (waiting, q=25)`,
    });
    expect(text.stdout).toMatch(
      new RegExp(
        `^jobs: +1 carrying ${bulkSku(2)} \\(3 push job\\(s\\) looked at; redis://127\\.0\\.0\\.1:\\d+, prefix erp-sync\\)$`,
        'm',
      ),
    );
    expect(text.stdout).toMatch(
      new RegExp(
        `^  pushes/${ids.waiting} stock-push waiting, generation \\d+, 0 attempt\\(s\\); ${bulkSku(2)} q=25$`,
        'm',
      ),
    );
  });

  it('a failed job: blocked, with its reason and the command that retries it; retried, it is queued again', async () => {
    const { text, code, story } = await explain(bulkSku(3));
    expect(code).toBe(1);
    expect(story.jobs?.jobs).toMatchObject([
      { id: ids.failed, state: 'failed', attempts: 1, failedReason: 'api_server: the platform answered 502' },
    ]);
    expect(story.verdict).toEqual({
      state: 'blocked',
      text: `${bulkSku(3)} stock: blocked: job pushes/${ids.failed} failed after 1 attempt(s): api_server: the platform answered 502 — retry with \`erp-sync jobs retry pushes/${ids.failed}\` (the next stock run also sends it again)`,
    });
    expect(text.stdout).toContain(`verdict: ${story.verdict.text}`);

    const retry = await runCli(['jobs', 'retry', `pushes/${ids.failed}`, '--config', configFile], env);
    expect(retry.code).toBe(0);
    const after = await explain(bulkSku(3));
    expect(after.story.verdict.text).toBe(
      `${bulkSku(3)} stock: will be pushed: queued in job pushes/${ids.failed} (waiting, q=35)`,
    );
  });

  it('a failed job older than the last push is listed but changes nothing (the generation guard would skip it)', async () => {
    const { code, story } = await explain(bulkSku(4));
    expect(code).toBe(1);
    expect(story.jobs?.jobs).toMatchObject([{ id: ids.stale, state: 'failed', generation: 0 }]);
    expect(story.verdict).toMatchObject({
      state: 'pending',
      text: expect.stringMatching(/will be pushed at the next run: a stock run is due/),
    });
  });

  it('no job: says so, and the verdict is the store and platform one', async () => {
    const { text, code, story } = await explain(bulkSku(1));
    expect(code).toBe(0);
    expect(story.jobs).toMatchObject({ read: true, jobs: [] });
    expect(story.verdict.state).toBe('in_step');
    expect(text.stdout).toMatch(
      /^jobs: +none queued or failed carrying BULK-000001 \(\d+ push job\(s\) looked at; /m,
    );
  });

  it('Redis unreachable: says so in the jobs line, shows the rest, exit code as without it', async () => {
    const { text, code, story } = await explain(bulkSku(2), { REDIS_URL: 'redis://127.0.0.1:9' });
    expect(code).toBe(1);
    expect(story.jobs).toEqual({
      read: false,
      where: 'redis://127.0.0.1:9, prefix erp-sync',
      error: 'Redis is not reachable',
      jobs: [],
      scanned: 0,
      truncated: false,
    });
    expect(story.verdict.text).toMatch(
      /BULK-000002 stock: will be pushed at the next run: a stock run is due/,
    );
    expect(text.stdout).toMatch(
      /^jobs: +could not be read: Redis is not reachable \(redis:\/\/127\.0\.0\.1:9, prefix erp-sync\)$/m,
    );
    expect(text.stdout).toMatch(/ERP now: +25 \(stock\.csv:3\)/);
  });
});
