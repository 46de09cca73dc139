import type { QueueClient } from './queueClient.js';

/**
 * How many daemons serve these queues: BullMQ names each worker's connection after its queue, so
 * Redis's client list tells which processes consume the runs and the pushes queues right now (a
 * daemon that died leaves no connection behind, unlike a heartbeat key that must expire).
 */
export async function runningDaemons(client: QueueClient): Promise<number> {
  const [runs, pushes] = await Promise.all([
    client.queue('runs').getWorkersCount(),
    client.queue('pushes').getWorkersCount(),
  ]);
  return Math.min(runs, pushes);
}
