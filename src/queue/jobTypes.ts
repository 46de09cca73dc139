import type { RunSummary } from '../sync/types.js';
import type { PipelineName } from '../sync/pipelineNames.js';

export type { PipelineName };

/** The queues: scans/polls of every pipeline, push batches, order imports. */
export const QUEUE_NAMES = ['runs', 'pushes', 'imports'] as const;
export type QueueName = (typeof QUEUE_NAMES)[number];

/** What started a run; shown in the dashboard and the logs. */
export type Trigger = 'schedule' | 'start' | 'manual';

export interface RunPayload {
  pipeline: PipelineName;
  full: boolean;
  trigger: Trigger;
  requestedAt: string;
}

/** Every job name with its payload: the queue layer decodes nothing else. */
export interface JobPayloads {
  catalog: RunPayload;
  'orders-poll': RunPayload;
  'stock-scan': RunPayload;
  'prices-scan': RunPayload;
  feedback: RunPayload;
  'erp-orders': RunPayload;
}

export type JobName = keyof JobPayloads;

/** What a run job returns (kept in Redis with the completed job until it is removed). */
export type RunResult = RunSummary;
