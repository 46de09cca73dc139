import { Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/createLogger.js';
import { createRedisConnection } from '../../../src/queue/redisConnection.js';
import { reportQueueErrors } from '../../../src/queue/reportQueueErrors.js';
import { eventually } from '../../../dev/daemonProcess.js';
import { startPrivateRedis, type PrivateRedis } from '../../../dev/redisServer.js';

const PASSWORD = 'redis-pass-9f2c71';

interface LogLine {
  level: number;
  msg: string;
  source?: string;
  redis?: string;
}

let redis: PrivateRedis | undefined;
const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => undefined);
  await redis?.close();
  redis = undefined;
});

describe('Redis, queue and worker errors at the default log level', () => {
  it('warns once per source with the address masked when Redis dies under a worker, and says when it is back', async () => {
    redis = await startPrivateRedis({ password: PASSWORD });
    const text: string[] = [];
    // The daemon's logger as `start` builds it: default level (info), JSON lines.
    const logger = createLogger({ destination: { write: (line: string) => void text.push(line) } });
    const lines = (): LogLine[] => text.map((line) => JSON.parse(line) as LogLine);

    const producer = createRedisConnection(redis.url, 'producer');
    const workerConnection = createRedisConnection(redis.url, 'worker');
    const connections: Redis[] = [producer, workerConnection];
    closers.push(async () => connections.forEach((c) => c.disconnect()));
    const errors = reportQueueErrors(logger, redis.url, { repeatMs: 60_000 });
    errors.connection('producer', producer);
    errors.connection('worker', workerConnection);
    const queue = new Queue('runs', { connection: producer, prefix: 'signals' });
    errors.queue(queue);
    closers.push(() => queue.close());
    let processed = 0;
    const worker = new Worker(
      'runs',
      async () => {
        processed += 1;
      },
      { connection: workerConnection, prefix: 'signals', drainDelay: 1 },
    );
    errors.worker(worker);
    closers.push(() => worker.close(true));
    await queue.add('probe', {});
    await eventually('the worker runs a job', () => processed === 1);
    expect(lines().filter((line) => line.level >= 40)).toEqual([]);

    await redis.stop();
    await eventually(
      'a warning for each connection and for the worker',
      () => {
        const sources = new Set(
          lines()
            .filter((l) => l.level === 40)
            .map((l) => l.source),
        );
        return ['producer connection', 'worker connection', 'worker runs'].every((s) => sources.has(s));
      },
      20_000,
    );
    // Several seconds of reconnect attempts: still one line per source (the rest are counted).
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const warnings = lines().filter((l) => l.level === 40);
    const perSource = new Map<string, number>();
    for (const w of warnings) perSource.set(w.source!, (perSource.get(w.source!) ?? 0) + 1);
    expect([...perSource.values()].every((n) => n === 1)).toBe(true);
    expect(warnings.find((w) => w.source === 'worker connection')).toMatchObject({
      msg: 'Redis unreachable (worker connection); reconnecting',
      redis: `redis://:***@127.0.0.1:${redis.port}`,
    });

    await redis.start();
    await eventually(
      'Redis reachable again, at info',
      () => lines().some((l) => l.level === 30 && l.msg === 'Redis reachable again (worker connection)'),
      20_000,
    );
    await queue.add('probe', {});
    await eventually('the worker runs a job again', () => processed === 2, 20_000);
    expect(text.join('\n')).not.toContain(PASSWORD);
  }, 60_000);
});
