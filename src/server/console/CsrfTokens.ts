import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** A form older than this is refused (the page refreshes its forms long before). */
const DEFAULT_MAX_AGE_MS = 12 * 3_600_000;

/**
 * The console's CSRF tokens: `<issued ms>.<HMAC-SHA256 of it>` under a key made at start and kept
 * in memory only. A page of the console carries a fresh one in each form; a POST is taken only
 * with a token this process issued within `maxAgeMs`. Another site can make a browser send a
 * POST (with its basic-auth credentials, or to a loopback port) but cannot read a page to learn a
 * token. A restart makes older forms invalid: the page says to reload.
 */
export class CsrfTokens {
  readonly #key: Buffer;
  readonly #maxAgeMs: number;
  readonly #now: () => number;

  constructor(options: { maxAgeMs?: number; now?: () => number; key?: Buffer } = {}) {
    this.#key = options.key ?? randomBytes(32);
    this.#maxAgeMs = options.maxAgeMs ?? DEFAULT_MAX_AGE_MS;
    this.#now = options.now ?? Date.now;
  }

  issue(): string {
    const issued = String(this.#now());
    return `${issued}.${this.#mac(issued)}`;
  }

  /** True for a token this key issued that is not older than maxAgeMs (nor from the future). */
  verify(token: unknown): boolean {
    if (typeof token !== 'string') return false;
    const match = /^(\d{1,16})\.([A-Za-z0-9_-]{43})$/.exec(token);
    if (!match) return false;
    const expected = Buffer.from(this.#mac(match[1]!));
    const given = Buffer.from(match[2]!);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return false;
    const age = this.#now() - Number(match[1]);
    return age >= -60_000 && age <= this.#maxAgeMs;
  }

  #mac(issued: string): string {
    return createHmac('sha256', this.#key).update(`erp-sync console ${issued}`).digest('base64url');
  }
}
