import { PIPELINES } from './registry.js';
import type { PipelineName } from '../domain/pipelineNames.js';
import type { RunOptions, RunSummary, SyncContext } from './frame/types.js';

/**
 * Runs one pipeline through the frame (lease, run record, own request counter, typed outcome).
 * Never throws for what happens in the run: the summary's `error` says what went wrong and whether
 * it is retryable, permanent or fatal. Safe to call for several runs at once on one context.
 */
export function runPipeline(name: PipelineName, ctx: SyncContext, options: RunOptions): Promise<RunSummary> {
  return PIPELINES[name](ctx, options);
}
