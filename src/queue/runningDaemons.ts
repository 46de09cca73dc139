import type { RedisCommands } from './RedisCommands.js';

// What BullMQ says when the server has no CLIENT command (some hosted Redis).
const NO_CLIENT_COMMAND = /ERR unknown command ['`]\s*client\s*['`]/;

/**
 * How many workers consume a queue now: BullMQ names each worker's connection
 * `<prefix>:<base64 of the queue's name>` (or that and `:w:<worker name>`), as its
 * `getWorkersCount` reads them from CLIENT LIST. A server without CLIENT LIST counts one, as
 * BullMQ does. Plain Redis commands, so `status` loads no BullMQ.
 */
export async function countQueueWorkers(
  redis: RedisCommands,
  prefix: string,
  queue: string,
): Promise<number> {
  const name = `${prefix}:${Buffer.from(queue).toString('base64')}`;
  let list: string;
  try {
    list = (await redis.call('CLIENT', 'LIST')) as string;
  } catch (error) {
    if (NO_CLIENT_COMMAND.test((error as Error).message)) return 1;
    throw error;
  }
  let count = 0;
  for (const line of list.split(/\r?\n/)) {
    const client = / name=(\S*)/.exec(` ${line}`)?.[1];
    if (client && (client === name || client.startsWith(`${name}:w:`))) count++;
  }
  return count;
}

/**
 * How many daemons serve these queues: the workers connected to the runs and the pushes queues
 * right now (a daemon that died leaves no connection behind, unlike a heartbeat key that must
 * expire).
 */
export async function runningDaemons(redis: RedisCommands, prefix: string): Promise<number> {
  const [runs, pushes] = await Promise.all([
    countQueueWorkers(redis, prefix, 'runs'),
    countQueueWorkers(redis, prefix, 'pushes'),
  ]);
  return Math.min(runs, pushes);
}
