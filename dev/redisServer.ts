import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort, startRedisServer, type RedisServerProcess } from '../src/queue/startRedisServer.js';

export { freePort };

/**
 * A private redis-server for one test file: its own free port and temporary folder, no
 * persistence, so a test may FLUSHALL, kill or restart it without touching anyone else's Redis.
 */
export interface PrivateRedis {
  url: string;
  port: number;
  /** Stops the server (SIGKILL: nothing is saved) and starts a fresh, empty one on the same port. */
  restart(): Promise<void>;
  /** Stops the server until start() (the daemon sees Redis go away). */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** A client for the test itself (remember to quit it). */
  client(): Redis;
  close(): Promise<void>;
}

export async function startPrivateRedis(options: { password?: string } = {}): Promise<PrivateRedis> {
  const dir = await mkdtemp(join(tmpdir(), 'redis-test-'));
  const port = await freePort();
  let server: RedisServerProcess | null = null;
  const clients: Redis[] = [];

  const start = async (): Promise<void> => {
    server = await startRedisServer({ port, dir, ...options });
  };
  const stop = async (): Promise<void> => {
    const running = server;
    server = null;
    await running?.stop();
  };

  await start();
  return {
    url: `redis://${options.password ? `:${encodeURIComponent(options.password)}@` : ''}127.0.0.1:${port}`,
    port,
    start,
    stop,
    async restart() {
      await stop();
      await start();
    },
    client() {
      const redis = new Redis(port, '127.0.0.1', { maxRetriesPerRequest: 3, password: options.password });
      clients.push(redis);
      return redis;
    },
    async close() {
      for (const redis of clients) redis.disconnect();
      await stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
