import type { Store } from '../../store/index.js';
import type { ProgressEvent } from './types.js';

/**
 * Writes a running run's counts into its run record at most every `intervalMs`, so that `status`
 * shows how far a run is while it works (the final counts come with the run's end).
 */
export function createRunProgressRecorder(store: Store, intervalMs = 1_000): (event: ProgressEvent) => void {
  const last = new Map<string, number>();
  return (event) => {
    if (event.done) return;
    const now = Date.now();
    if (now - (last.get(event.pipeline) ?? 0) < intervalMs) return;
    last.set(event.pipeline, now);
    store.runs.recordProgress(event.pipeline, { read: event.read, sent: event.sent, applied: event.applied });
  };
}
