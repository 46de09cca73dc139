import type { RunOptions, RunSummary, SyncContext } from './types.js';

// Being built (issue 4); the signature is final.
export async function runPrices(_ctx: SyncContext, _options: RunOptions): Promise<RunSummary> {
  throw new Error('the prices pipeline is not implemented yet');
}
