import { Queue } from 'bullmq';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/createLogger.js';
import { PauseController, readPauseState } from '../../../src/queue/pauseController.js';
import { createRedisConnection } from '../../../src/queue/redisConnection.js';
import { eventually } from '../../../dev/daemonProcess.js';
import { startPrivateRedis, type PrivateRedis } from '../../../dev/redisServer.js';

interface LogLine {
  level: number;
  msg: string;
}

let redis: PrivateRedis | undefined;
const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => undefined);
  await redis?.close();
  redis = undefined;
});

/** A pause controller over a real queue; `platformUp` decides what GET /account (the probe) does. */
async function pauseWorld(platformUp: () => boolean) {
  redis = await startPrivateRedis();
  const text: string[] = [];
  const logger = createLogger({ destination: { write: (line: string) => void text.push(line) } });
  const producer = createRedisConnection(redis.url, 'producer');
  closers.push(async () => producer.disconnect());
  const queue = new Queue('runs', { connection: producer, prefix: 'pause' });
  closers.push(() => queue.close());
  // As in the daemon: the producer is connected before anything can pause.
  await queue.waitUntilReady();
  let probes = 0;
  const controller = new PauseController({
    queues: [queue],
    redis: producer,
    prefix: 'pause',
    probeMs: 300,
    logger,
    probe: async () => {
      probes += 1;
      if (!platformUp()) throw new Error('connect ECONNREFUSED 127.0.0.1:9');
    },
  });
  closers.push(async () => controller.close());
  return {
    controller,
    queue,
    producer,
    probes: () => probes,
    lines: () => text.map((line) => JSON.parse(line) as LogLine),
  };
}

describe('the daemon pause names who refused the login', () => {
  it('an ERP login refused: says so (not the API key), asks the platform nothing, and lets the next job try the ERP again', async () => {
    const world = await pauseWorld(() => false);
    await world.controller.pause('erp_auth: Tryton refused the login of "erp_sync"', 'erp_auth');
    expect(await world.queue.isPaused()).toBe(true);
    expect(await readPauseState(world.producer, 'pause')).toMatchObject({ code: 'erp_auth' });
    const paused = world.lines().find((line) => line.level === 50)!;
    expect(paused.msg).toContain("the ERP refused erp-sync's login (erp_auth)");
    expect(paused.msg).not.toMatch(/API key/);

    // The platform is down too: still, an ERP pause does not wait for it.
    await eventually('the queues resume for the next ERP login', async () => !(await world.queue.isPaused()));
    expect(world.probes()).toBe(0);
    expect(world.controller.paused).toBeNull();
    expect(world.lines().at(-1)!.msg).toBe("queues resumed: the next job tries the ERP's login again");
  });

  it('the API key refused: says so, and stays paused until GET /account answers', async () => {
    let up = false;
    const world = await pauseWorld(() => up);
    await world.controller.pause('api_auth: 401 Unauthorized', 'api_auth');
    expect(world.lines().find((line) => line.level === 50)!.msg).toContain(
      'the platform refused the API key',
    );
    await eventually('a probe was refused', () => world.probes() >= 1);
    expect(await world.queue.isPaused()).toBe(true);
    up = true;
    await eventually(
      'the queues resume once the key is accepted',
      async () => !(await world.queue.isPaused()),
    );
    expect(world.lines().at(-1)!.msg).toBe('the platform accepts the API key again: queues resumed');
  });
});
