import type { Store } from '../store/index.js';
import { pushLeaseName } from './flowLease.js';

export interface FlowLeaseKeeperOptions {
  store: Store;
  /** The pipelines whose scans run as flows. */
  pipelines: readonly string[];
  /** `sync.lease.ttlSeconds` in ms: each renewal extends the hold by this much. */
  ttlMs: number;
  /** Whether the scan job still waits for push jobs of its flow (its state is `waiting-children`). */
  pushing: (scanJobId: string) => Promise<boolean>;
  onError?: (error: Error) => void;
}

export interface FlowLeaseKeeper {
  stop(): void;
}

/**
 * A flow's hold on `sync:<pipeline>` must last as long as its batches are still to go out, also
 * while none of them runs (the pushes queue waiting out a 429's Retry-After, a batch's backoff) or
 * one bulk request outlasts the TTL. A push job extends the hold only when it starts, so the
 * daemon renews it every third of the TTL while the flow's scan job waits for its children.
 * Renewal comes from a live daemon only: with every daemon dead the hold lapses after the TTL,
 * and a restarted one renews it again once it finds the flow still waiting in Redis. A scan job
 * that is itself running (a re-run after a crash) is not pushing: it settles its earlier attempt
 * and takes the lease anew.
 */
export function startFlowLeaseKeeper(options: FlowLeaseKeeperOptions): FlowLeaseKeeper {
  const intervalMs = Math.max(50, Math.floor(options.ttlMs / 3));
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const tick = async (): Promise<void> => {
    for (const pipeline of options.pipelines) {
      const name = pushLeaseName(pipeline);
      const owner = options.store.leases.holder(name)?.owner;
      if (!owner?.startsWith('flow-')) continue;
      // Fenced by the owner: a flow that ended (released) meanwhile, or a run that took over, is left alone.
      if (await options.pushing(owner.slice('flow-'.length)))
        options.store.leases.renew(name, owner, options.ttlMs);
    }
  };
  const schedule = (): void => {
    if (stopped) return;
    timer = setTimeout(() => {
      tick()
        .catch((error: Error) => options.onError?.(error))
        .finally(schedule);
    }, intervalMs);
    timer.unref();
  };
  schedule();
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
