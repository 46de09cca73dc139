import type { IncomingHttpHeaders } from 'node:http';
import type { Db } from '../db/openDatabase.js';
import { ApiError } from './apiError.js';

export interface Company {
  id: number;
  label: string;
  name: string;
  currency: string;
  has_user: number;
}

export type KeyLabel = 'primary' | 'secondary' | 'revoked' | 'no_user';

interface KeyRow {
  label: KeyLabel;
  revoked: number;
  company_id: number;
}

/** The key a request presents, or why its key headers are refused (a 401 `invalid_token`). */
export type PresentedKey =
  { key: string | undefined; problem?: undefined } | { key?: undefined; problem: string };

/**
 * The key sent as `Authorization: Bearer <key>` (scheme case-insensitive) or `X-Api-Key: <key>`.
 * `Authorization` with no key (`Bearer` alone, blanks) counts as absent. Refused: an
 * `Authorization` in another form (a bare key, `Basic ...`: a key must never be guessed out of
 * it), and both headers carrying different keys (which one the caller meant is unknowable).
 */
export function presentedKey(headers: IncomingHttpHeaders): PresentedKey {
  const auth = headers.authorization;
  let bearer: string | undefined;
  if (typeof auth === 'string' && !/^\s*(bearer)?\s*$/i.test(auth)) {
    const m = /^\s*bearer\s+(\S+)\s*$/i.exec(auth);
    if (!m) return { problem: 'The Authorization header must be "Bearer <key>".' };
    bearer = m[1];
  }
  const x = headers['x-api-key'];
  const value = (Array.isArray(x) ? x[0] : x)?.trim();
  const apiKey = value ? value : undefined;
  if (bearer !== undefined && apiKey !== undefined && bearer !== apiKey)
    return { problem: 'Authorization and X-Api-Key carry different keys; send one.' };
  return { key: bearer ?? apiKey };
}

/** Resolves API keys to companies; keys rarely change, so rows are cached. */
export class Authenticator {
  private readonly keys = new Map<string, KeyRow | null>();
  private readonly companyStmt;
  private readonly keyStmt;

  constructor(db: Db) {
    this.keyStmt = db.prepare<[string], KeyRow>(
      'SELECT label, revoked, company_id FROM api_keys WHERE key = ?',
    );
    this.companyStmt = db.prepare<[number], Company>(
      'SELECT id, label, name, currency, has_user FROM companies WHERE id = ?',
    );
  }

  private row(key: string): KeyRow | null {
    let row = this.keys.get(key);
    if (row === undefined) {
      row = this.keyStmt.get(key) ?? null;
      if (this.keys.size < 10_000) this.keys.set(key, row);
    }
    return row;
  }

  /** Drops a key's cached row (after it was revoked or restored). */
  forget(key: string): void {
    this.keys.delete(key);
  }

  /** Which demo key (by label) the request carries, for the request log; null if none or unknown. */
  labelOf(headers: IncomingHttpHeaders): KeyLabel | null {
    const { key } = presentedKey(headers);
    return key ? (this.row(key)?.label ?? null) : null;
  }

  /** The caller's company, or the 401/403 of spec section 5. */
  authenticate(headers: IncomingHttpHeaders): Company {
    const { key, problem } = presentedKey(headers);
    if (problem) throw new ApiError(401, 'invalid_token', problem);
    if (!key)
      throw new ApiError(401, 'missing_token', 'An API key is required (Authorization: Bearer <key>).');
    const row = this.row(key);
    if (!row || row.revoked) throw new ApiError(401, 'invalid_token', 'The API key is invalid or revoked.');
    const company = this.companyStmt.get(row.company_id);
    if (!company) throw new ApiError(401, 'invalid_token', 'The API key is invalid or revoked.');
    if (!company.has_user) throw new ApiError(403, 'no_user', 'The company has no associated user.');
    return company;
  }
}
