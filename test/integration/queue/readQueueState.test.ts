import { FlowProducer, Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOB_STATES, readQueueState } from '../../../src/queue/readQueueState.js';
import { RespConnection } from '../../../src/queue/RespConnection.js';
import { countQueueWorkers, runningDaemons } from '../../../src/queue/runningDaemons.js';
import { startPrivateRedis, type PrivateRedis } from '../../../dev/redisServer.js';

// `status` reads queue counts, pause and workers with plain Redis commands on BullMQ's keys. Here
// they are compared with BullMQ's own answers on a real Redis holding a job in every state, so
// a BullMQ release that changes its keys or its worker names fails this test. They read over the
// connection `status` uses (RespConnection); the pause and worker reads also over ioredis, as the
// daemon and the queue commands call them.

const PREFIX = 'rqs';
let server: PrivateRedis;
let redis: RespConnection;
let ioredis: Redis;
const closing: { close(): Promise<unknown> }[] = [];

beforeAll(async () => {
  server = await startPrivateRedis();
  redis = await RespConnection.open(server.url, 3_000);
  ioredis = server.client();
});

afterAll(async () => {
  redis.close();
  for (const c of closing.reverse()) await c.close();
  await server.close();
});

const connection = () => ({ host: '127.0.0.1', port: server.port, maxRetriesPerRequest: null });

describe('readQueueState and countQueueWorkers', () => {
  it('agree with BullMQ on counts per state, pause and workers, the state of every job known', async () => {
    const queue = new Queue('runs', { connection: connection(), prefix: PREFIX });
    const flows = new FlowProducer({ connection: connection(), prefix: PREFIX });
    closing.push(queue, flows);

    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const worker = new Worker(
      'runs',
      async (job) => {
        if (job.name === 'fail') throw new Error('refused on purpose');
        if (job.name === 'hold') await held;
      },
      { connection: connection(), prefix: PREFIX, concurrency: 1, name: 'daemon-1' },
    );
    closing.push({ close: async () => (release(), worker.close()) });
    await worker.waitUntilReady();

    // Finished jobs first, then one the worker holds, so everything added after it waits.
    const settled = new Promise<void>((resolve) => {
      let done = 0;
      const count = () => ++done === 3 && resolve();
      worker.on('completed', count);
      worker.on('failed', count);
    });
    await queue.addBulk([
      { name: 'ok', data: {} },
      { name: 'ok', data: {} },
      { name: 'fail', data: {} },
    ]);
    await settled;
    const active = new Promise<void>((resolve) => worker.once('active', () => resolve()));
    await queue.add('hold', {});
    await active;
    await queue.addBulk([
      { name: 'later', data: {} },
      { name: 'later', data: {} },
      { name: 'urgent', data: {}, opts: { priority: 1 } },
      { name: 'tomorrow', data: {}, opts: { delay: 86_400_000 } },
    ]);
    await flows.add({ name: 'parent', queueName: 'runs', children: [{ name: 'child', queueName: 'runs' }] });

    const ours = await readQueueState(redis, PREFIX, 'runs');
    expect(ours).toEqual({
      paused: false,
      counts: {
        waiting: 3, // two later, one child
        active: 1,
        delayed: 1,
        'waiting-children': 1,
        completed: 2,
        failed: 1,
        prioritized: 1,
      },
    });
    expect(ours.counts).toEqual(await queue.getJobCounts(...JOB_STATES));
    expect(ours.paused).toBe(await queue.isPaused());

    await queue.pause();
    const paused = await readQueueState(redis, PREFIX, 'runs');
    expect(paused.paused).toBe(true);
    expect(paused.paused).toBe(await queue.isPaused());
    expect(paused.counts).toEqual(await queue.getJobCounts(...JOB_STATES));
    await queue.resume();

    expect(await countQueueWorkers(redis, PREFIX, 'runs')).toBe(1);
    expect(await countQueueWorkers(redis, PREFIX, 'runs')).toBe(await queue.getWorkersCount());
    expect(await countQueueWorkers(ioredis, PREFIX, 'runs')).toBe(1);
    // A worker of another queue, and one of another prefix, are not this queue's.
    expect(await countQueueWorkers(redis, PREFIX, 'pushes')).toBe(0);
    expect(await countQueueWorkers(redis, 'other', 'runs')).toBe(0);
  });

  it('counts a daemon when both its runs and pushes workers are connected, unnamed workers too', async () => {
    const prefix = 'daemons';
    expect(await runningDaemons(redis, prefix)).toBe(0);
    const runs = new Worker('runs', async () => undefined, { connection: connection(), prefix });
    closing.push(runs);
    await runs.waitUntilReady();
    expect(await runningDaemons(redis, prefix)).toBe(0); // runs alone is not a daemon
    const pushes = new Worker('pushes', async () => undefined, { connection: connection(), prefix });
    closing.push(pushes);
    await pushes.waitUntilReady();
    expect(await runningDaemons(redis, prefix)).toBe(1);
    expect(await runningDaemons(ioredis, prefix)).toBe(1);
    const queue = new Queue('pushes', { connection: connection(), prefix });
    closing.push(queue);
    expect(await countQueueWorkers(redis, prefix, 'pushes')).toBe(await queue.getWorkersCount());
    await pushes.close();
    expect(await runningDaemons(redis, prefix)).toBe(0);
  });
});
