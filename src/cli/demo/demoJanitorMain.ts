import { rmSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { infoField } from '../../queue/checkRedis.js';
import { openQueueClient } from '../../queue/queueClient.js';
import type { JanitorItem } from './startDemoJanitor.js';

/** The janitor's process (started by `startDemoJanitor`): it waits for the demo to end, then cleans up. */

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Kills the redis-server only when the Redis answering on its port reports that very pid: a port
 * or a pid taken over by another process since is left alone.
 */
async function stopRedisIfOurs({ port, pid }: { port: number; pid: number }): Promise<void> {
  let client;
  try {
    client = await openQueueClient({ url: `redis://127.0.0.1:${port}`, prefix: 'erp-sync-demo' }, 2_000);
  } catch {
    return;
  }
  try {
    if (Number(infoField(await client.redis.info('server'), 'process_id')) !== pid) return;
  } catch {
    return;
  } finally {
    await client.close();
  }
  process.kill(pid, 'SIGKILL');
  for (let i = 0; i < 50 && alive(pid); i += 1) await sleep(100);
}

const items: JanitorItem[] = [];
for await (const line of createInterface({ input: process.stdin })) {
  try {
    items.push(JSON.parse(line) as JanitorItem);
  } catch {
    // Not one of ours: ignored.
  }
}
// The pipe closed: the demo is gone. The server first (it works in its folder), then the folders.
for (const item of items) if ('redis' in item) await stopRedisIfOurs(item.redis);
for (const item of items) if ('dir' in item) rmSync(item.dir, { recursive: true, force: true });
process.exit(0);
