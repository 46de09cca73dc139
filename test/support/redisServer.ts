import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';

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

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const dir = await mkdtemp(join(tmpdir(), 'redis-test-'));
  const port = await freePort();
  let child: ChildProcess | null = null;
  const clients: Redis[] = [];

  const start = async (): Promise<void> => {
    const proc = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--dir',
        dir,
        '--save',
        '',
        '--appendonly',
        'no',
        '--maxmemory-policy',
        'noeviction',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child = proc;
    let output = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`redis-server did not start: ${output}`)), 10_000);
      const onData = (chunk: Buffer): void => {
        output += chunk.toString();
        if (/Ready to accept connections/.test(output)) {
          clearTimeout(timer);
          proc.stdout?.off('data', onData);
          resolve();
        }
      };
      proc.stdout?.on('data', onData);
      proc.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      proc.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`redis-server exited with ${code}: ${output}`));
      });
    });
    proc.stdout?.resume();
    proc.stderr?.resume();
  };

  const stop = async (): Promise<void> => {
    const proc = child;
    child = null;
    if (!proc || proc.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      proc.once('exit', () => resolve());
      proc.kill('SIGKILL');
    });
  };

  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    start,
    stop,
    async restart() {
      await stop();
      await start();
    },
    client() {
      const redis = new Redis(port, '127.0.0.1', { maxRetriesPerRequest: 3 });
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
