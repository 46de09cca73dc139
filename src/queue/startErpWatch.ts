import type { ErpAdapter } from '../erp/ErpAdapter.js';
import type { ErpWatch, ErpWatchState } from '../erp/ErpWatch.js';
import type { Logger } from '../logger.js';
import { pipelineOfErpChange } from '../sync/pipelineOfErpChange.js';
import type { PipelineName } from './jobTypes.js';

/**
 * Instant triggers: when the adapter can watch the ERP, each change enqueues the scan of the
 * pipeline that reads it (an enabled one only), de-duplicated with the schedule's runs. An adapter
 * without `watch`, or a watch that cannot start, leaves the schedule alone in charge.
 */
export async function startErpWatch(
  erp: ErpAdapter,
  enabled: ReadonlySet<PipelineName>,
  trigger: (pipeline: PipelineName) => Promise<void>,
  log: Logger,
  onState?: (state: ErpWatchState) => void,
): Promise<ErpWatch | null> {
  if (!erp.watch) return null;
  try {
    const watch = await erp.watch(
      (change) => {
        const pipeline = pipelineOfErpChange(change);
        if (pipeline === null || !enabled.has(pipeline)) return;
        trigger(pipeline).catch((error: Error) =>
          log.warn({ pipeline, change, err: error.message }, 'could not enqueue the run of an ERP change'),
        );
      },
      (state) => onState?.(state),
    );
    onState?.({ watching: true });
    return watch;
  } catch (error) {
    const reason = (error as Error).message;
    log.warn({ err: reason }, 'cannot watch the ERP: pipelines run on their schedule only');
    onState?.({ watching: false, reason });
    return null;
  }
}
