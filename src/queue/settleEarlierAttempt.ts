import type { Job } from 'bullmq';
import { ErpSyncError } from '../domain/errors.js';

export interface SettleOptions {
  /** Aborted on shutdown: stop waiting (the scan job is recovered and settles at the next start). */
  signal?: AbortSignal;
  /** Told once when a batch of the earlier attempt is still running (locked) and is awaited. */
  onWait?: (running: number) => void;
  pollMs?: number;
}

/**
 * Before a scan job (re)reads the ERP: the push jobs an earlier attempt of the same job enqueued
 * (its process died mid-scan, or the scan threw after some batches) are removed while they wait,
 * and those running are awaited. Otherwise a batch of the earlier attempt, carrying the values
 * read then, could be sent while (or after) the new attempt's batch of the same item, and
 * overwrite the newer value on the platform while the store records the newer one as
 * acknowledged (invariant 4). A removed batch was never sent, so the new scan diffs its items
 * again; a batch that was sending left its items in flight, so the new scan sends them again. A
 * batch of a dead process stays locked until its lock lapses (`lockDuration`), then goes.
 * Returns how many batches of an earlier attempt were pending when the scan began.
 */
export async function settleEarlierAttempt(scan: Job, options: SettleOptions = {}): Promise<number> {
  const found = await pendingChildren(scan);
  let pending = found;
  let told = false;
  while (pending > 0) {
    await scan.removeUnprocessedChildren();
    pending = await pendingChildren(scan);
    if (pending === 0) break;
    if (options.signal?.aborted)
      throw new ErpSyncError('internal', 'interrupted (SIGINT/SIGTERM) while an earlier attempt settled');
    if (!told) options.onWait?.(pending);
    told = true;
    await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 250));
  }
  return found;
}

async function pendingChildren(scan: Job): Promise<number> {
  return (await scan.getDependenciesCount({ unprocessed: true })).unprocessed ?? 0;
}
