import { getPipeline } from '../sync/registry.js';
import type { RunOptions, RunSummary, SyncContext } from '../sync/types.js';
import type { PipelineName } from './jobTypes.js';

/** Calls the pipeline of that name; the queue layer knows pipelines only through this. */
export function runPipelineByName(
  name: PipelineName,
  ctx: SyncContext,
  options: RunOptions,
): Promise<RunSummary> {
  const pipeline = getPipeline(name);
  if (!pipeline) throw new Error(`no pipeline named ${name}`);
  return pipeline(ctx, options);
}
