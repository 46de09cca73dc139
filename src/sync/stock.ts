import type { RunOptions, RunSummary, SyncContext } from './types.js';

// Being built (issue 4); the signature is final.
export async function runStock(_ctx: SyncContext, _options: RunOptions): Promise<RunSummary> {
  throw new Error('the stock pipeline is not implemented yet');
}
