import type { FingerprintPipeline } from '../../store/index.js';
import type { SyncContext } from '../frame/types.js';

/** How long a learned bulk limit holds before one request tries twice as many items. */
export const BULK_PROBE_AFTER_MS = 24 * 60 * 60 * 1000;

/**
 * The bulk size of a push pipeline, starting at `sync.batchSize` (the platform's 1000 unless
 * configured lower): a size refusal lowers it for the account, kept in the store; once a day one
 * request tries double the learned size (at most one refused request a day per endpoint), and a
 * size that is taken becomes the new limit.
 */
export interface BulkSizing {
  /** Items for the next request. */
  size(): number;
  /** The platform refused `sent` items for their number or size; `named`: the limit it stated. */
  refused(sent: number, named?: number): void;
  /** The platform took `sent` items in one request. */
  accepted(sent: number): void;
}

export function bulkSizing(
  ctx: Pick<SyncContext, 'store' | 'config'>,
  pipeline: FingerprintPipeline,
  now: () => number = Date.now,
): BulkSizing {
  const { store } = ctx;
  const ceiling = ctx.config.sync.batchSize;
  return {
    size() {
      const limit = store.bulkLimits.get(pipeline);
      if (!limit || limit.size >= ceiling) return ceiling;
      if (now() - limit.learnedAt >= BULK_PROBE_AFTER_MS) return Math.min(ceiling, limit.size * 2);
      return limit.size;
    },
    refused(sent, named) {
      const size = named !== undefined && named >= 1 && named < sent ? named : Math.floor(sent / 2);
      store.bulkLimits.lower(pipeline, Math.max(1, size), now());
    },
    accepted(sent) {
      const limit = store.bulkLimits.get(pipeline);
      if (!limit || sent <= limit.size) return;
      if (sent >= ceiling) store.bulkLimits.clear(pipeline);
      else store.bulkLimits.raise(pipeline, sent, now());
    },
  };
}
