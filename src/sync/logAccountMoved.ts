import type { Logger } from 'pino';
import type { AccountIdentity } from '../store/index.js';
import { describeAccount } from './StoreAccountMismatchError.js';

/** The one line that says the store's company now answers at another base URL (recorded in the store). */
export function logAccountMoved(logger: Logger, from: string, current: AccountIdentity): void {
  logger.warn(
    { previousBaseUrl: from, baseUrl: current.baseUrl, companyId: current.companyId },
    `the store's company answers at a new address: ${describeAccount(current)} (was ${from}); ` +
      'the store keeps its links and records the new address',
  );
}
