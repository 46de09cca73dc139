import { ErpSyncError } from '../domain/errors.js';
import type { AccountIdentity, StoreAccount } from '../store/index.js';

/** The store was filled from another platform account: syncing with it would mix two accounts' data. */
export class StoreAccountMismatchError extends ErpSyncError {
  constructor(
    readonly storePath: string,
    readonly bound: StoreAccount,
    readonly current: AccountIdentity,
  ) {
    super(
      'store_account_mismatch',
      `the store ${storePath} belongs to ${describeAccount(bound)} (since ${bound.boundAt}), ` +
        `not to ${describeAccount(current)}; its links, fingerprints and cursors would be wrong there. ` +
        `Point store.path at this account's own store, or start over with \`erp-sync store reset\``,
      { storePath, bound, current },
    );
  }
}

export function describeAccount(account: AccountIdentity): string {
  const name = account.companyName ? `"${account.companyName}" ` : '';
  return `the account ${name}(company ${account.companyId}) at ${account.baseUrl}`;
}
