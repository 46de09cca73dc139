import type { Store, SyncRun } from '../../store/index.js';
import type { DaemonStatus, StatusReport } from '../../diagnostics/StatusReport.js';
import type { AuditReport } from '../../diagnostics/audit.js';
import type { OrderStory } from '../../diagnostics/explainOrder.js';
import type { SkuStory } from '../../diagnostics/explainSku.js';
import type { PipelineName } from '../../domain/pipelineNames.js';

/**
 * What the console shows of `erp-sync status`: the parts of the status report it reads, with the
 * daemon's status (`buildStatusReport`, `buildDaemonStatus`, passed in by the daemon as they are).
 */
export type ConsoleStatus = Pick<StatusReport, 'account' | 'pipelines' | 'rejects' | 'parkedOrders'> & {
  daemon: DaemonStatus;
};

/** What the ERP adapter's `check()` says, with its kind. */
export interface ErpState {
  kind: string;
  ok: boolean;
  details: string;
}

/** A run with its state as `status` shows it (a run whose process is gone: interrupted). */
export type ConsoleRun = Omit<SyncRun, 'status'> & { status: string };

/**
 * Everything the console reads or does, passed in by the daemon (as the queues and the readiness
 * are): the store for listings, and functions for what needs the queue layer, the ERP adapter or
 * the platform. Each may fail: the console shows the failure where its part would be.
 */
export interface ConsoleSources {
  store: Store;
  /** The API base URL the daemon talks to (the configuration refuses one with credentials). */
  platform: string;
  /** The pipelines the console lists and may sync, in run order. */
  pipelines: readonly PipelineName[];
  status(): Promise<ConsoleStatus>;
  recentRuns(limit: number): ConsoleRun[];
  erp(): Promise<ErpState>;
  explainSku(sku: string): Promise<SkuStory>;
  explainOrder(orderId: number): Promise<OrderStory>;
  /** A read-only audit of every pipeline it covers (`erp-sync audit`, without --fix). */
  audit(): Promise<AuditReport>;
  /** Enqueues a manual run in the daemon (`erp-sync sync PIPELINE`); the job id. */
  sync(pipeline: PipelineName): Promise<string>;
  /** Makes the parked orders due and enqueues an orders run (`erp-sync orders retry`); the job id. */
  retryParked(orderIds: readonly number[]): Promise<{ made: number; jobId: string }>;
}
