import type { ApiClient } from '../api/index.js';
import type { Store, StoreAccount } from '../store/index.js';
import { StoreAccountMismatchError } from './StoreAccountMismatchError.js';

/**
 * Invariant 12, one store, one account: reads the account (GET /account), binds an unbound store
 * to it (unless `bind` is false: a dry run writes nothing) and throws StoreAccountMismatchError
 * when the store belongs to another base URL or company. Errors of GET /account propagate.
 */
export async function verifyStoreAccount(
  store: Store,
  client: ApiClient,
  baseUrl: string,
  options: { bind: boolean },
): Promise<StoreAccount | undefined> {
  const current = accountIdentity(baseUrl, await client.account.get());
  const bound = store.account.get() ?? (options.bind ? store.account.bind(current) : undefined);
  if (bound && !sameAccount(bound, current)) throw new StoreAccountMismatchError(store.path, bound, current);
  return bound;
}

export function accountIdentity(
  baseUrl: string,
  account: Record<string, unknown>,
): Omit<StoreAccount, 'boundAt'> {
  const id = [account.id, account.cui, account.name].find(
    (value) => (typeof value === 'string' && value.trim() !== '') || typeof value === 'number',
  );
  const name = account.name ?? account.company_name;
  return {
    baseUrl: normaliseBaseUrl(baseUrl),
    companyId: id === undefined ? '?' : String(id),
    companyName: typeof name === 'string' ? name : null,
  };
}

export function sameAccount(a: Omit<StoreAccount, 'boundAt'>, b: Omit<StoreAccount, 'boundAt'>): boolean {
  return a.baseUrl === b.baseUrl && a.companyId === b.companyId;
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
