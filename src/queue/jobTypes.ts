import type { ApiOrder } from '../api/schemas.js';
import type { PushBatch } from '../sync/push/pushBatch.js';
import type { PackedBatch } from './packedBatch.js';
import type { RunSummary } from '../sync/frame/types.js';
import type { PipelineName } from '../domain/pipelineNames.js';

export type { PipelineName };

/** The queues: runs (scans and polls of every pipeline), pushes (one bulk request each), imports (orders into the ERP). */
export const QUEUE_NAMES = ['runs', 'pushes', 'imports'] as const;
export type QueueName = (typeof QUEUE_NAMES)[number];

/** What started a run; shown in the dashboard and the logs (`audit`: the pushes of `audit --fix`). */
export type Trigger = 'schedule' | 'start' | 'watch' | 'manual' | 'audit';

export interface RunPayload {
  pipeline: PipelineName;
  full: boolean;
  trigger: Trigger;
  requestedAt: string;
}

/** A scan job's payload; after its scan it records what its push jobs need to be summed up. */
export interface ScanPayload extends RunPayload {
  step?: 'scanned';
  scan?: {
    summary: RunSummary;
    receipt: string | null;
    batches: number;
    /** When the scan handed the lease to its flow (ms since the epoch): the flow's age counts from here. */
    scannedAt?: number;
    /** Keys of push jobs an earlier attempt of this job had finished: left out of the sums. */
    earlierBatches?: string[];
  };
  /** Set by the daemon that failed the flow for holding its pipeline too long (FlowStuckError's message). */
  stuck?: string;
  /** A flow that left work undone: its summary, kept here since a failed job has no return value. */
  outcome?: RunSummary;
}

/** One bulk request of a scan, with the owners of the pipeline lease it may send under. */
export interface PushPayload {
  /**
   * Packed by column (`packBatch`); a job a version before the packing queued carries a `PushBatch`
   * (an object per item), read the same (`readPushBatch`).
   */
  batch: PackedBatch | PushBatch;
  /** The owner of the scan's run lease, which the batch may send under while the scan reads on; after it, the flow (the job's parent) holds the lease. */
  scanOwner: string;
}

/** One platform order to import. */
export interface ImportPayload {
  orderId: number;
  /** The order as the list gave it, when that is the whole order: imported without a GET. */
  listed?: ApiOrder;
}

/** Platform orders to import one after the other, each listed in full (no GET): an `order-imports` job. */
export interface ImportBatchPayload {
  orders: ApiOrder[];
}

/** Every job name, each handled by one kind of the registry (src/queue/jobRegistry.ts). */
export const JOB_NAMES = [
  'catalog',
  'products',
  'orders-poll',
  'stock-scan',
  'prices-scan',
  'feedback',
  'erp-orders',
  'stock-push',
  'prices-push',
  'order-import',
  'order-imports',
] as const;
export type JobName = (typeof JOB_NAMES)[number];

/** Every job name with its payload: the queue layer decodes nothing else. */
export interface JobPayloads {
  catalog: RunPayload;
  products: RunPayload;
  'orders-poll': RunPayload;
  'stock-scan': ScanPayload;
  'prices-scan': ScanPayload;
  feedback: RunPayload;
  'erp-orders': RunPayload;
  'stock-push': PushPayload;
  'prices-push': PushPayload;
  'order-import': ImportPayload;
  'order-imports': ImportBatchPayload;
}

/** What a queue's worker hands its processors: the payloads of every job of that queue. */
export interface QueuePayloads {
  /** Run jobs and scans: a scan's payload is a run's with its step. */
  runs: ScanPayload;
  pushes: PushPayload;
  imports: ImportPayload | ImportBatchPayload;
}

/** The run job of each pipeline: what a schedule, `erp-sync sync` or `audit --fix` enqueues. */
export const RUN_JOB_NAMES = {
  catalog: 'catalog',
  products: 'products',
  orders: 'orders-poll',
  stock: 'stock-scan',
  prices: 'prices-scan',
  feedback: 'feedback',
  'erp-orders': 'erp-orders',
} as const satisfies Record<PipelineName, JobName>;

/** The push job of a pipeline's batch. */
export const pushJobName = (pipeline: PushBatch['pipeline']): `${PushBatch['pipeline']}-push` =>
  `${pipeline}-push`;

/** What a run job returns (kept in Redis with the completed job until it is removed). */
export type RunResult = RunSummary;
