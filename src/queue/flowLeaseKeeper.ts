import type { Store } from '../store/index.js';
import { flowHolding, releaseFlow, renewFlow } from '../sync/frame/pipelineLease.js';
import { FlowStuckError } from './FlowStuckError.js';
import type { FlowView } from './stuckFlow.js';

export interface FlowLeaseKeeperOptions {
  store: Store;
  /** The pipelines whose scans run as flows. */
  pipelines: readonly string[];
  /** `sync.lease.ttlSeconds` in ms: each renewal extends the hold by this much. */
  ttlMs: number;
  /** The flow of a scan job as Redis has it (null: gone). */
  inspect: (scanJobId: string) => Promise<FlowView | null>;
  /** How long a flow of this many batches may hold its pipeline (flowLimit.ts). */
  limitMs: (batches: number) => number;
  /** Fails a flow past its limit in Redis (stuckFlow.ts); the keeper then releases its lease. */
  failStuck: (scanJobId: string, error: FlowStuckError) => Promise<void>;
  /** A stuck flow was failed and its lease released by this keeper: a metric, a log line. */
  onStuck?: (pipeline: string, error: FlowStuckError) => void;
  onError?: (error: Error) => void;
}

/** The pipelines whose scans run as flows (a scan job with one push job per bulk request). */
export const FLOW_PIPELINES = ['stock', 'prices'] as const;

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
 * and takes the lease anew. The renewal is bounded: a flow older than its limit (a child that
 * never ends, a parent BullMQ never wakes) is failed and its lease released, so it cannot hold the
 * pipeline for as long as a daemon lives.
 */
export function startFlowLeaseKeeper(options: FlowLeaseKeeperOptions): FlowLeaseKeeper {
  const intervalMs = Math.max(50, Math.floor(options.ttlMs / 3));
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const tick = async (): Promise<void> => {
    for (const pipeline of options.pipelines) {
      const scanJobId = flowHolding(options.store, pipeline);
      if (scanJobId === null) continue;
      const flow = await options.inspect(scanJobId);
      if (!flow?.pushing) continue;
      const limitMs = options.limitMs(flow.batches);
      if (flow.ageMs <= limitMs) {
        // Fenced by the owner: a flow that ended (released) meanwhile, or a run that took over, is left alone.
        renewFlow(options.store, pipeline, scanJobId, options.ttlMs);
        continue;
      }
      const error = new FlowStuckError(pipeline, flow.ageMs, limitMs);
      await options.failStuck(scanJobId, error);
      // Two replicas may both fail it: the one whose release took the lease reports it.
      if (releaseFlow(options.store, pipeline, scanJobId)) options.onStuck?.(pipeline, error);
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
