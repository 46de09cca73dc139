import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { infoField, redisVersionOk } from '../../queue/checkRedis.js';
import { openQueueClient } from '../../queue/queueClient.js';
import { redactRedisUrl } from '../../queue/redactRedisUrl.js';
import { RedisServerStartError } from '../../queue/RedisServerStartError.js';
import { freePort, startRedisServer } from '../../queue/startRedisServer.js';
import type { DemoJanitor } from './startDemoJanitor.js';

/** The Redis the demo's daemon uses: the user's (REDIS_URL) or a private redis-server of its own. */
export interface DemoRedis {
  url: string;
  /** One line for the narration, the URL without its password. */
  description: string;
  /** Deletes every key under the demo's BullMQ prefix (the user's Redis keeps nothing of the demo). */
  dropPrefix(prefix: string): Promise<void>;
  /** Stops a private redis-server and removes its folder; leaves the user's Redis alone. */
  close(): Promise<void>;
}

export type DemoRedisChoice = { redis: DemoRedis } | { hint: string };

/**
 * REDIS_URL when it answers (Redis >= 6.2); otherwise a private `redis-server` from PATH on a free
 * port in a temporary folder; otherwise one line saying how to get Redis.
 */
export async function obtainDemoRedis(
  env: NodeJS.ProcessEnv = process.env,
  janitor?: DemoJanitor,
): Promise<DemoRedisChoice> {
  const why: string[] = [];
  const url = env.REDIS_URL;
  if (url) {
    const problem = await usable(url);
    if (problem === null) {
      return {
        redis: {
          url,
          description: `Redis: REDIS_URL (${redactRedisUrl(url)})`,
          dropPrefix: (prefix) => dropKeys(url, prefix),
          close: async () => undefined,
        },
      };
    }
    why.push(`REDIS_URL (${redactRedisUrl(url)}): ${problem}`);
  }
  const started = await startPrivateRedis(janitor);
  if ('redis' in started) {
    const { redis } = started;
    return { redis: { ...redis, description: [...why, redis.description].join('; ') } };
  }
  why.push(started.problem);
  return {
    hint:
      `No Redis for the daemon (${why.join('; ')}): install Redis >= 6.2 (\`apt install redis-server\`, ` +
      '`brew install redis`) or set REDIS_URL; meanwhile the pipelines run inline.',
  };
}

async function startPrivateRedis(janitor?: DemoJanitor): Promise<{ redis: DemoRedis } | { problem: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'erp-sync-demo-redis-'));
  janitor?.watchDir(dir);
  let lastProblem = '';
  // A second try: the free port may be taken by someone else before redis-server binds it.
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      const server = await startRedisServer({ port: await freePort(), dir, detached: true });
      if (!redisVersionOk(server.version)) {
        await server.stop();
        lastProblem = `redis-server on PATH is version ${server.version}, older than 6.2`;
        break;
      }
      // Killed (SIGKILL, or a signal not handled): the janitor stops it.
      janitor?.watchRedis({ port: server.port, pid: server.pid });
      // Ended without the finally blocks (an uncaught error, process.exit): the server goes too.
      const onExit = (): void => {
        server.child.kill('SIGKILL');
        rmSync(dir, { recursive: true, force: true });
      };
      process.once('exit', onExit);
      return {
        redis: {
          url: server.url,
          description:
            `Redis: a private redis-server ${server.version} (pid ${server.pid}) on 127.0.0.1:${server.port}, ` +
            `folder ${dir}; stopped and removed at the end`,
          dropPrefix: async () => undefined,
          async close() {
            process.off('exit', onExit);
            try {
              await server.stop();
            } finally {
              rmSync(dir, { recursive: true, force: true });
            }
          },
        },
      };
    } catch (error) {
      if (error instanceof RedisServerStartError && error.notFound) {
        lastProblem = 'no redis-server on PATH';
        break;
      }
      lastProblem = (error as Error).message;
    }
  }
  rmSync(dir, { recursive: true, force: true });
  return { problem: lastProblem };
}

/** null when the Redis at `url` answers and is recent enough for BullMQ, else why not. */
async function usable(url: string): Promise<string | null> {
  let client;
  try {
    client = await openQueueClient({ url, prefix: 'erp-sync-demo' }, 2_000);
  } catch {
    return 'not reachable';
  }
  try {
    const version = infoField(await client.redis.info('server'), 'redis_version') ?? '?';
    return redisVersionOk(version) ? null : `version ${version} is older than 6.2`;
  } catch (error) {
    return (error as Error).message;
  } finally {
    await client.close();
  }
}

async function dropKeys(url: string, prefix: string): Promise<void> {
  const client = await openQueueClient({ url, prefix }, 2_000);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await client.redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
      if (keys.length) await client.redis.unlink(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    await client.close();
  }
}
