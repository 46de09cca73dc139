import { callSingle, get } from '../call.js';
import { apiObjectSchema, type ApiAccount, type ApiStats } from '../schemas.js';
import type { Transport } from '../transport.js';

export interface AccountApi {
  /** The company profile; also the cheapest way to check that the key works. */
  get(): Promise<ApiAccount>;
}

export interface StatsApi {
  get(): Promise<ApiStats>;
}

export function accountApi(transport: Transport): AccountApi {
  return { get: () => callSingle(transport, apiObjectSchema, get('/account', '/account')) };
}

export function statsApi(transport: Transport): StatsApi {
  return { get: () => callSingle(transport, apiObjectSchema, get('/stats', '/stats')) };
}
