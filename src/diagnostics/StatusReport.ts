import type { PipelineName } from '../domain/pipelineNames.js';
import type { StoreAccount } from '../store/index.js';

/**
 * The shapes of `erp-sync status`: built by the CLI (`buildStatusReport`) and the queue layer
 * (`buildDaemonStatus`), shown by the CLI and the daemon's console. Here, below both, so that
 * each imports the one type instead of restating it.
 */

/** Why the daemon's queues are paused, as the pause controller records it in Redis. */
export interface PauseState {
  reason: string;
  since: string;
  /** The failure's code: `erp_*` when the ERP refused erp-sync's login, else the platform's. */
  code?: string;
}

/** Queues, pause, schedules and lag of the daemon (Redis may be unreachable: then says so). */
export interface DaemonStatus {
  /** Without any password. */
  redis: string;
  reachable: boolean;
  error?: string;
  /** Workers connected to the runs queue: one per running daemon. */
  daemons: number;
  paused: PauseState | null;
  queues: Record<string, { paused: boolean; counts: Record<string, number> }>;
  pipelines: Record<
    PipelineName,
    {
      schedule: string;
      nextRun: string | null;
      lastRun: string | null;
      lastSuccess: string | null;
      lagSeconds: number | null;
    }
  >;
}

/** What `erp-sync status` shows. Built from the store only: no API key, no customer data. */
export interface StatusReport {
  store: string;
  /** The platform account the store belongs to (null until the first run). */
  account: StoreAccount | null;
  pipelines: {
    pipeline: PipelineName;
    /** ok, failed, running, interrupted; null: never run. */
    status: string | null;
    startedAt: string | null;
    finishedAt: string | null;
    error: string | null;
    counts: Record<string, unknown> | null;
  }[];
  rejects: { open: number; byPipeline: Record<string, number> };
  parkedOrders: {
    orderId: number;
    number: string | null;
    reason: string;
    attempts: number;
    firstParkedAt: string;
    nextAttemptAt: string;
  }[];
  orders: {
    links: number;
    seen: Record<string, number>;
    events: Record<string, number>;
    erpOrders: Record<string, number>;
  };
  cursors: { name: string; value: string; updatedAt: string }[];
  daemon?: DaemonStatus;
}
