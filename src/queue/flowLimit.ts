import type { Config } from '../config.js';
import { MAX_RATE_LIMIT_WAIT_MS } from './jobFailure.js';

/**
 * How long a push flow (a scan's batches, or an `audit --fix` heal) may hold its pipeline before
 * the daemon fails it: the worst case of every batch used up to the end. A batch takes at most
 * `queue.attempts` attempts, each one bulk request within the API client's `deadlineMs` (its own
 * retries included) plus the longest 429 wait of the queue, with the backoff between attempts;
 * `sync.concurrency` batches go out at once, and the lease TTL is the slack of the last renewal.
 * `queue.flowLimitSeconds` lowers it (never raises it).
 */
export function flowLimitMs(batches: number, config: Pick<Config, 'api' | 'queue' | 'sync'>): number {
  const { attempts, backoffSeconds, flowLimitSeconds } = config.queue;
  const backoffMs = backoffSeconds * 1000 * (2 ** (attempts - 1) - 1);
  const perBatchMs = attempts * (config.api.deadlineMs + MAX_RATE_LIMIT_WAIT_MS) + backoffMs;
  const rounds = Math.ceil(Math.max(1, batches) / config.sync.concurrency);
  const derived = rounds * perBatchMs + config.sync.lease.ttlSeconds * 1000;
  return flowLimitSeconds === null ? derived : Math.min(derived, flowLimitSeconds * 1000);
}
