import { describeError, isErpSyncError } from '../domain/errors.js';
import { StoreAccountMismatchError } from '../sync/StoreAccountMismatchError.js';
import { logAccountMoved } from '../sync/logAccountMoved.js';
import { verifyStoreAccount } from '../sync/storeAccount.js';
import type { SyncContext } from '../sync/frame/types.js';
import { EXIT_OTHER_ACCOUNT } from './exitCodes.js';

/**
 * Before a command syncs: the store must belong to the configured account (invariant 12). Returns
 * the exit code to end with when it does not. When the account cannot be read, the pipelines run
 * and meet the same failure, reported their way (a refused key exits 2, an unreachable API 1).
 */
export async function refuseOtherAccount(
  ctx: SyncContext,
  options: { dryRun: boolean },
): Promise<number | undefined> {
  try {
    const check = await verifyStoreAccount(ctx.store, ctx.client, ctx.config.api.baseUrl, {
      bind: !options.dryRun,
    });
    if (check.movedFrom) logAccountMoved(ctx.logger, check.movedFrom, check.current);
    return undefined;
  } catch (error) {
    if (error instanceof StoreAccountMismatchError) {
      process.stderr.write(`erp-sync: ${describeError(error)}\n`);
      return EXIT_OTHER_ACCOUNT;
    }
    ctx.logger.warn(
      { errorCode: isErpSyncError(error) ? error.code : 'internal' },
      `could not read the account (GET /account) to check that the store belongs to it: ${describeError(error)}`,
    );
    return undefined;
  }
}
