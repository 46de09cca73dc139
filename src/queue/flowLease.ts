import type { Store } from '../store/index.js';

/**
 * The store lease `sync:<pipeline>` across a whole push flow: the scan job's frame holds it while
 * it reads (owner `scanOwner`), hands it to the flow (owner `flow-<scan job id>`) before the frame
 * ends, and the scan job releases it once every push job of the flow is done. So a newer scan (a
 * manual one, another replica, a run-once) can never start while batches of an older scan are
 * still to be sent: no older value lands after a newer one (invariant 4), and the batches of one
 * scan, which touch different items, go out in parallel.
 */
/** The pipelines whose scans run as flows (a scan job with one push job per bulk request). */
export const FLOW_PIPELINES = ['stock', 'prices'] as const;

export const pushLeaseName = (pipeline: string): string => `sync:${pipeline}`;
export const flowOwner = (scanJobId: string): string => `flow-${scanJobId}`;

/** Inside the frame, after the scan: the lease passes from the frame's owner to the flow, atomically. */
export function handLeaseToFlow(store: Store, pipeline: string, owner: string, ttlMs: number): void {
  const name = pushLeaseName(pipeline);
  store.transaction(() => {
    const holder = store.leases.holder(name);
    if (holder) store.leases.release(name, holder.owner);
    store.leases.acquire(name, owner, ttlMs);
  });
}

export interface FlowLeaseOptions {
  scanOwner: string;
  owner: string;
  ttlMs: number;
  waitMs: number;
  signal?: AbortSignal;
  pollMs?: number;
  /** Whether the flow still lives (asked before taking a free lease: a failed flow's late batch sends nothing). */
  alive: () => Promise<boolean>;
}

/**
 * Before a push job sends: the lease must be its flow's (or still its scan's, while the scan reads
 * on). Extends the flow's hold; waits while another run holds it (a run-once, say). `ended`: the
 * lease is free and the flow is gone (failed as stuck, lost with Redis): the batch must not go out.
 */
export async function enterFlowLease(
  store: Store,
  pipeline: string,
  options: FlowLeaseOptions,
): Promise<'entered' | 'busy' | 'ended'> {
  const name = pushLeaseName(pipeline);
  const deadline = Date.now() + options.waitMs;
  for (;;) {
    const holder = store.leases.holder(name)?.owner;
    if (holder === options.scanOwner) return 'entered';
    if (holder === options.owner && store.leases.acquire(name, options.owner, options.ttlMs))
      return 'entered';
    if (holder === undefined) {
      if (!(await options.alive())) return 'ended';
      if (store.leases.acquire(name, options.owner, options.ttlMs)) return 'entered';
    }
    if (Date.now() > deadline || options.signal?.aborted) return 'busy';
    await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 100));
  }
}

/**
 * A flow lost with Redis (a restart without persistence, a FLUSHALL) would hold the lease until
 * it lapses: a scan releases it at once when the flow that holds it is gone.
 */
export async function releaseLostFlow(
  store: Store,
  pipeline: string,
  alive: (scanJobId: string) => Promise<boolean>,
): Promise<void> {
  const name = pushLeaseName(pipeline);
  const holder = store.leases.holder(name)?.owner;
  if (!holder?.startsWith('flow-')) return;
  if (!(await alive(holder.slice('flow-'.length)))) store.leases.release(name, holder);
}

export function releaseFlowLease(store: Store, pipeline: string, owner: string): void {
  store.leases.release(pushLeaseName(pipeline), owner);
}
