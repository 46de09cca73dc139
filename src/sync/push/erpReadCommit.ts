import type { ReadReceipt } from '../../erp/ErpRead.js';
import { asReadReceipt } from '../../erp/ErpRead.js';
import type { FingerprintPipeline, Store } from '../../store/index.js';
import type { SyncContext } from '../frame/types.js';

const cursorName = (pipeline: FingerprintPipeline): string => `erp-read:${pipeline}`;

/** The receipt of the last committed ERP read of a pipeline (null: none yet, read everything). */
export function lastCommittedRead(store: Store, pipeline: FingerprintPipeline): ReadReceipt | null {
  const text = store.cursors.get(cursorName(pipeline));
  return text === null ? null : asReadReceipt(text);
}

/**
 * Finishes a read once every item of it is acknowledged: the adapter's own step (the file
 * adapter archives its file), then the receipt kept in the store, so that the next read of a
 * delta adapter starts there. Kept in the store and not by the adapter: `store reset` and
 * another account's store then start with a full read, and a crash before this point re-reads.
 */
export async function commitErpRead(
  ctx: SyncContext,
  pipeline: FingerprintPipeline,
  receipt: ReadReceipt,
): Promise<void> {
  await ctx.erp.commit(receipt);
  ctx.store.cursors.set(cursorName(pipeline), receipt);
}
