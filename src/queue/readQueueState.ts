import type { RespConnection } from './RespConnection.js';

/** The job states `status` shows, in its order. */
export const JOB_STATES = [
  'waiting',
  'active',
  'delayed',
  'waiting-children',
  'completed',
  'failed',
  'prioritized',
] as const;

export type JobState = (typeof JOB_STATES)[number];

export interface QueueState {
  paused: boolean;
  counts: Record<JobState, number>;
}

/**
 * A queue's counts per state and whether it is paused, read from BullMQ's keys with plain Redis
 * commands, the way BullMQ's `getJobCounts` and `isPaused` read them: `status` then starts without
 * loading BullMQ (about 200 modules). `test/integration/queue/readQueueState.test.ts` compares it
 * with BullMQ's own answers, so a BullMQ release that moves its keys fails there.
 */
export async function readQueueState(
  redis: Pick<RespConnection, 'transaction'>,
  prefix: string,
  name: string,
): Promise<QueueState> {
  const key = (suffix: string): string => `${prefix}:${name}:${suffix}`;
  const reads: string[][] = [['HEXISTS', key('meta'), 'paused']];
  for (const state of JOB_STATES) {
    if (state === 'waiting' || state === 'active')
      reads.push(['LLEN', key(state === 'waiting' ? 'wait' : state)]);
    else reads.push(['ZCARD', key(state)]);
  }
  // A marker BullMQ 5 left at the tail of the wait list ("0:..."), which getJobCounts leaves out.
  reads.push(['LINDEX', key('wait'), '-1']);
  const values = await redis.transaction(reads);
  const refused = values.find((value) => value instanceof Error);
  if (refused) throw refused;
  const counts = {} as Record<JobState, number>;
  JOB_STATES.forEach((state, i) => (counts[state] = Number(values[i + 1] ?? 0)));
  const tail = values[JOB_STATES.length + 1];
  if (typeof tail === 'string' && tail.startsWith('0:')) counts.waiting = Math.max(0, counts.waiting - 1);
  return { paused: values[0] === 1, counts };
}
