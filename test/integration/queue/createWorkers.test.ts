import { Queue, QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config.js';
import { createWorkers } from '../../../src/queue/createWorkers.js';
import type { JobKind } from '../../../src/queue/jobKind.js';
import type { JobRegistry } from '../../../src/queue/jobRegistry.js';
import type { JobRuntime } from '../../../src/queue/jobRuntime.js';
import type { ImportPayload } from '../../../src/queue/jobTypes.js';
import { startPrivateRedis, type PrivateRedis } from '../../../dev/redisServer.js';

let redis: PrivateRedis;
beforeAll(async () => {
  redis = await startPrivateRedis();
});
afterAll(async () => {
  await redis.close();
});

describe('the workers built from the registry', () => {
  it('hand each job to the kind of its name on its queue, through the guard; an unknown name fails at once', async () => {
    const config = parseConfig({
      api: { baseUrl: 'http://127.0.0.1:1/api/v2', apiKey: 'k' },
      erp: { type: 'file', path: '/tmp' },
      redis: { url: redis.url, prefix: 'workers' },
      orders: { concurrency: 3 },
    });
    const seen: number[] = [];
    const importKind: JobKind<ImportPayload, number> = {
      name: 'order-import',
      queue: 'imports',
      async process(job) {
        seen.push(job.data.orderId);
        return job.data.orderId * 2;
      },
    };
    const registry: JobRegistry = { runs: [], pushes: [], imports: [importKind] };
    const guarded: string[] = [];
    const connection = new Redis(redis.url, { maxRetriesPerRequest: null });
    // The test kind never reads the runtime; the workers read only the ERP's bound of imports at once.
    const runtime = { ctx: { erp: { capabilities: { importsAtOnce: 7 } } } } as unknown as JobRuntime;
    const workers = createWorkers({
      registry,
      runtime,
      config,
      connection,
      guard: (processor) => async (job, token, signal) => {
        guarded.push(job.name);
        return processor(job, token, signal);
      },
    });
    const opts = { connection: { host: '127.0.0.1', port: redis.port }, prefix: 'workers' };
    const imports = new Queue('imports', opts);
    const events = new QueueEvents('imports', opts);
    try {
      expect([...workers.keys()]).toEqual(['runs', 'pushes', 'imports']);
      expect(workers.get('imports')!.opts.concurrency).toBe(3);
      await events.waitUntilReady();
      const known = await imports.add('order-import', { orderId: 21 });
      expect(await known.waitUntilFinished(events, 10_000)).toBe(42);
      const unknown = await imports.add('order-export', { orderId: 5 }, { attempts: 3 });
      await expect(unknown.waitUntilFinished(events, 10_000)).rejects.toThrow(
        'no handler for job "order-export" on the imports queue',
      );
      const failed = await imports.getJob(unknown.id!);
      expect(failed!.attemptsMade).toBe(1); // never retried
      expect(seen).toEqual([21]);
      expect(guarded).toEqual(['order-import', 'order-export']);
    } finally {
      await Promise.all([...workers.values()].map((worker) => worker.close()));
      await Promise.all([imports.close(), events.close()]);
      connection.disconnect();
    }
  });

  it('run as many imports at once as the ERP adapter takes when orders.concurrency is not set', async () => {
    const config = parseConfig({
      api: { baseUrl: 'http://127.0.0.1:1/api/v2', apiKey: 'k' },
      erp: { type: 'file', path: '/tmp' },
      redis: { url: redis.url, prefix: 'workers-bound' },
    });
    expect(config.orders.concurrency).toBeNull();
    const runtime = { ctx: { erp: { capabilities: { importsAtOnce: 7 } } } } as unknown as JobRuntime;
    const connection = new Redis(redis.url, { maxRetriesPerRequest: null });
    const workers = createWorkers({
      registry: { runs: [], pushes: [], imports: [] },
      runtime,
      config,
      connection,
      guard: (processor) => processor,
    });
    try {
      expect(workers.get('imports')!.opts.concurrency).toBe(7);
      expect(workers.get('pushes')!.opts.concurrency).toBe(config.sync.concurrency);
    } finally {
      await Promise.all([...workers.values()].map((worker) => worker.close()));
      connection.disconnect();
    }
  });
});
