import type { Store } from '../../store/index.js';
import { acquireLease, type AcquireOptions, type Lease } from './lease.js';

/*
 * The pipeline lease protocol, in one place. The store lease `sync:<pipeline>` makes the runs of
 * one pipeline take turns, so a value read earlier never lands after one read later (invariant 4):
 * - a run (the frame) acquires it before it reads and renews it while it works;
 * - a push scan whose batches go out later (the daemon's flows) hands it to its flow
 *   (`flow-<id>`) before its frame ends, so a newer scan waits until every batch was sent;
 * - a batch enters it before it sends: still the scan's while the scan reads on, the flow's
 *   afterwards; a free lease only while its flow lives;
 * - the daemon renews a flow's hold while the flow waits for its batches, and releases it when the
 *   flow ends, is lost with Redis or is failed as stuck.
 * Nothing else reads or writes `store.leases` for a pipeline.
 */

export const pipelineLeaseName = (pipeline: string): string => `sync:${pipeline}`;

const FLOW_PREFIX = 'flow-';
const flowOwner = (flowId: string): string => `${FLOW_PREFIX}${flowId}`;

/** A run's hold: waits (up to `waitMs`) while another run holds it, renewed until released or handed over. */
export function acquirePipelineLease(
  store: Store,
  pipeline: string,
  options: AcquireOptions,
): Promise<Lease> {
  return acquireLease(store, pipelineLeaseName(pipeline), options);
}

/** A dry run's: it writes nothing, so it neither waits behind nor holds up a real run. */
export function dryRunLease(pipeline: string): Lease {
  return {
    name: pipelineLeaseName(pipeline),
    owner: 'dry-run',
    assertHeld: () => undefined,
    handOver: () => undefined,
    release: () => undefined,
  };
}

/** Inside the frame, after the scan: the run's lease passes to flow `flowId`, atomically (LeaseLostError when it was lost). */
export function handToFlow(lease: Lease, flowId: string): void {
  lease.handOver(flowOwner(flowId));
}

/** The flow that holds the pipeline's lease now, or null (free, or a run's). */
export function flowHolding(store: Store, pipeline: string): string | null {
  const owner = store.leases.holder(pipelineLeaseName(pipeline))?.owner;
  return owner?.startsWith(FLOW_PREFIX) ? owner.slice(FLOW_PREFIX.length) : null;
}

/** Extends flow `flowId`'s hold; false when it no longer holds it (ended, or another run took over). */
export function renewFlow(store: Store, pipeline: string, flowId: string, ttlMs: number): boolean {
  return store.leases.renew(pipelineLeaseName(pipeline), flowOwner(flowId), ttlMs);
}

/** Ends flow `flowId`'s hold; false when it did not hold it (so two daemons never both report one release). */
export function releaseFlow(store: Store, pipeline: string, flowId: string): boolean {
  return store.leases.release(pipelineLeaseName(pipeline), flowOwner(flowId));
}

export interface EnterFlowOptions {
  /** The owner of the scan's run lease, which its batches may send under while it still reads. */
  scanOwner: string;
  flowId: string;
  ttlMs: number;
  waitMs: number;
  /** Whether the flow still lives (asked before taking a free lease: a failed flow's late batch sends nothing). */
  alive: () => Promise<boolean>;
  signal?: AbortSignal;
  pollMs?: number;
}

/**
 * Before a batch of flow `flowId` sends: the lease must be its flow's (or still its scan's, while
 * the scan reads on). Extends the flow's hold; waits while another run holds it (a run-once, say).
 * `ended`: the lease is free and the flow is gone (failed as stuck, lost with Redis): the batch
 * must not go out.
 */
export async function enterFlow(
  store: Store,
  pipeline: string,
  options: EnterFlowOptions,
): Promise<'entered' | 'busy' | 'ended'> {
  const name = pipelineLeaseName(pipeline);
  const owner = flowOwner(options.flowId);
  const deadline = Date.now() + options.waitMs;
  for (;;) {
    const holder = store.leases.holder(name)?.owner;
    if (holder === options.scanOwner) return 'entered';
    if (holder === owner && store.leases.acquire(name, owner, options.ttlMs)) return 'entered';
    if (holder === undefined) {
      if (!(await options.alive())) return 'ended';
      if (store.leases.acquire(name, owner, options.ttlMs)) return 'entered';
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
  alive: (flowId: string) => Promise<boolean>,
): Promise<void> {
  const flowId = flowHolding(store, pipeline);
  if (flowId !== null && !(await alive(flowId))) releaseFlow(store, pipeline, flowId);
}
