import { randomUUID } from 'node:crypto';
import { ErpSyncError } from '../../domain/errors.js';
import { processIdentity, processIsGone, type Store } from '../../store/index.js';

/**
 * One lease per pipeline makes overlapping runs (two run-once processes, a cron run and a manual
 * one) take turns. It is acquired before the ERP is read, so a run that reads later also sends
 * later: a value read earlier can never land on the platform after a value read later.
 */
export interface Lease {
  readonly name: string;
  readonly owner: string;
  /** Throws LeaseLostError when another run took the lease (ours expired): stop sending at once. */
  assertHeld(): void;
  /**
   * Passes the lease to `owner` in one transaction, with the TTL it was taken with; this holder
   * stops renewing it and its `release` does nothing. Throws LeaseLostError when it is no longer ours.
   */
  handOver(owner: string): void;
  release(): void;
}

export class LeaseLostError extends ErpSyncError {
  constructor(name: string) {
    super(
      'internal',
      `lost the lease "${name}" to another run (it expired while this run was stalled); stopping`,
    );
  }
}

export class LeaseBusyError extends ErpSyncError {
  constructor(name: string, holder: string, waitedMs: number) {
    super(
      'erp_unavailable',
      `another run holds "${name}" (${holder}); gave up after waiting ${Math.round(waitedMs / 1000)} s`,
    );
  }
}

export interface AcquireOptions {
  ttlMs: number;
  waitMs: number;
  pollMs?: number;
  signal?: AbortSignal;
  onWait?: (holder: string) => void;
}

/** "host:pid:start:random": the process (see processIdentity) and one of its runs. */
export function leaseOwner(): string {
  return `${processIdentity()}:${randomUUID().slice(0, 8)}`;
}

export async function acquireLease(store: Store, name: string, options: AcquireOptions): Promise<Lease> {
  const owner = leaseOwner();
  const started = Date.now();
  let warned = false;
  for (;;) {
    if (store.leases.acquire(name, owner, options.ttlMs)) break;
    const holder = store.leases.holder(name);
    // A crashed run's lease is taken over at once, also when a new process now has its PID.
    if (holder && processIsGone(holder.owner)) {
      store.leases.release(name, holder.owner);
      continue;
    }
    if (Date.now() - started >= options.waitMs)
      throw new LeaseBusyError(name, holder?.owner ?? 'unknown', options.waitMs);
    if (!warned && holder) {
      options.onWait?.(holder.owner);
      warned = true;
    }
    if (options.signal?.aborted)
      throw new ErpSyncError('internal', `interrupted while waiting for "${name}"`);
    await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 200));
  }

  let lost = false;
  const renew = setInterval(
    () => {
      if (!lost && !store.leases.renew(name, owner, options.ttlMs)) lost = true;
    },
    Math.max(50, Math.floor(options.ttlMs / 3)),
  );
  renew.unref();
  return {
    name,
    owner,
    assertHeld() {
      // Renewing here, right before a request, is the fence: it fails if another run took over.
      if (!lost && !store.leases.renew(name, owner, options.ttlMs)) lost = true;
      if (lost) throw new LeaseLostError(name);
    },
    handOver(next) {
      clearInterval(renew);
      store.transaction(() => {
        if (lost || !store.leases.renew(name, owner, options.ttlMs)) throw new LeaseLostError(name);
        store.leases.release(name, owner);
        store.leases.acquire(name, next, options.ttlMs);
      });
    },
    release() {
      clearInterval(renew);
      store.leases.release(name, owner);
    },
  };
}
