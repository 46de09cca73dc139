import type { ApiClient } from '../api/index.js';
import type { AccountIdentity, Store, StoreAccount } from '../store/index.js';
import { StoreAccountMismatchError } from './StoreAccountMismatchError.js';

/** What checking the store's account found: the binding in force, and the address it moved from. */
export interface AccountCheck {
  /** undefined: the store is not bound yet and `bind` was false (a dry run). */
  bound: StoreAccount | undefined;
  current: AccountIdentity;
  /** The same company answered at another base URL: the store now records the new one. */
  movedFrom?: string;
}

/**
 * Invariant 12, one store, one account: reads the account (GET /account), binds an unbound store
 * to it (unless `bind` is false: a dry run writes nothing) and throws StoreAccountMismatchError
 * when the store belongs to another company. Errors of GET /account propagate.
 */
export async function verifyStoreAccount(
  store: Store,
  client: ApiClient,
  baseUrl: string,
  options: { bind: boolean },
): Promise<AccountCheck> {
  return settleStoreAccount(store, accountIdentity(baseUrl, await client.account.get()), options);
}

/**
 * The store's side of verifyStoreAccount, for an identity already read: binds, refuses another
 * company, and records a new address of the same company (not when `bind` is false).
 */
export function settleStoreAccount(
  store: Store,
  current: AccountIdentity,
  options: { bind: boolean },
): AccountCheck {
  const bound = store.account.get() ?? (options.bind ? store.account.bind(current) : undefined);
  if (!bound) return { bound, current };
  const verdict = compareAccounts(bound, current);
  if (verdict === 'other') throw new StoreAccountMismatchError(store.path, bound, current);
  if (!options.bind) return { bound, current };
  if (bound.taxId === null && current.taxId !== null) store.account.completeTaxId(current.taxId);
  if (verdict === 'moved')
    return { bound: store.account.moveTo(current.baseUrl), current, movedFrom: bound.baseUrl };
  return { bound: store.account.get()!, current };
}

export function accountIdentity(baseUrl: string, account: Record<string, unknown>): AccountIdentity {
  const id = [account.id, account.cui, account.name].find(
    (value) => (typeof value === 'string' && value.trim() !== '') || typeof value === 'number',
  );
  const name = account.name ?? account.company_name;
  const taxId = [account.cui, account.tax_id, account.vat_number].find(
    (value) => (typeof value === 'string' && value.trim() !== '') || typeof value === 'number',
  );
  return {
    baseUrl: normaliseBaseUrl(baseUrl),
    companyId: id === undefined ? '?' : String(id),
    companyName: typeof name === 'string' ? name : null,
    taxId: taxId === undefined ? null : String(taxId).trim(),
  };
}

/**
 * `same`: the bound company at the bound address; `moved`: the same company at another address
 * (a proxy, http -> https, a new host name); `other`: another company. The company is its id and,
 * when both sides know it, its tax id (an id alone could repeat on another platform); the address
 * never makes two companies the same, nor the same company two.
 */
export function compareAccounts(
  bound: AccountIdentity,
  current: AccountIdentity,
): 'same' | 'moved' | 'other' {
  if (bound.companyId !== current.companyId) return 'other';
  if (
    bound.taxId !== null &&
    current.taxId !== null &&
    normaliseTaxId(bound.taxId) !== normaliseTaxId(current.taxId)
  )
    return 'other';
  return bound.baseUrl === current.baseUrl ? 'same' : 'moved';
}

/** Case, spaces and the country prefix of a VAT number ("RO 123" and "123" are one company). */
export function normaliseTaxId(value: string): string {
  return value
    .toUpperCase()
    .replace(/[\s.-]/g, '')
    .replace(/^[A-Z]{2}(?=\d)/, '');
}

/** Scheme and host lower-cased, default port and trailing slashes dropped, never credentials. */
export function normaliseBaseUrl(value: string): string {
  const url = new URL(value);
  url.username = '';
  url.password = '';
  url.hash = '';
  url.search = '';
  return url.href.replace(/\/+$/, '');
}

/**
 * What the last check found: the store's company answers (verified), the account could not be
 * read or not yet (unverified), or another company answers (mismatch). The last two hold every job.
 */
export type AccountState = 'verified' | 'unverified' | 'mismatch';
