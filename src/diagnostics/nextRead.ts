import { itemKeyString, type ItemKey } from '../domain/records.js';
import type { FingerprintPipeline } from '../store/index.js';
import { batches } from '../sync/frame/batches.js';
import { lastCommittedRead } from '../sync/push/erpReadCommit.js';
import type { PushSpec } from '../sync/push/diffPushItems.js';
import type { SyncContext } from '../sync/frame/types.js';

/** Whether the next run's ERP read holds an item, and the adapter's bound for the rest. */
export interface NextRead {
  /** The next run reads this item (a snapshot read holds every item). */
  holds: boolean;
  /** Minutes between the adapter's full reads (0: only on --full). */
  fullReadEveryMinutes: number;
}

/** True when the pipeline's reads are `delta`: the next run reads only what changed. */
export function readsDelta(ctx: SyncContext, pipeline: FingerprintPipeline): boolean {
  return ctx.erp.capabilities.reads[pipeline] === 'delta';
}

/**
 * The keys of the read the next run of a pipeline makes (from the last committed receipt, as that
 * run does), in chunks; read only, nothing committed. A later read from the same receipt holds at
 * least these, so an item in it is sent by the next run; one missing waits for a full read.
 */
export async function* nextReadKeys<R extends ItemKey, W>(
  ctx: SyncContext,
  spec: PushSpec<R, W>,
): AsyncGenerator<string[]> {
  const read = spec.rows(lastCommittedRead(ctx.store, spec.pipeline));
  for await (const chunk of batches(read, ctx.config.sync.batchSize))
    yield chunk.map((row) => (row.ok ? itemKeyString(row.record) : row.key));
}

export function nextRead(ctx: SyncContext, pipeline: FingerprintPipeline, holds: boolean): NextRead {
  return { holds, fullReadEveryMinutes: ctx.erp.capabilities.fullReadEveryMinutes[pipeline] };
}
