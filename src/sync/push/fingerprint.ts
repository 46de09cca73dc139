import type { PriceRecord } from '../../domain/records.js';

/**
 * Fingerprints are short canonical strings of the values the platform acknowledged, not opaque
 * digests: the catalog compares them field by field with what the platform reports (no echo).
 */

/** Prefix of a fingerprint recording a value the platform refused: not resent until it changes. */
export const REFUSED_PREFIX = '!';

export function stockFingerprint(quantity: number): string {
  return `q=${quantity}`;
}

export type PriceValues = Pick<PriceRecord, 'price' | 'salePrice' | 'costPrice' | 'vatRate'>;

/** What the platform holds for one item, in the terms the fingerprints use. */
export interface PlatformValues {
  /** undefined: a variable product's own stock, the sum of its variants (never pushed, never compared). */
  stock: number | null | undefined;
  prices: Partial<Record<keyof PriceValues, number | null>>;
}

const PRICE_FIELDS = [
  ['p', 'price'],
  ['s', 'salePrice'],
  ['c', 'costPrice'],
  ['v', 'vatRate'],
] as const;

/** Written for a field sent as null (a cleared sale price): `s=null`, unlike an absent field. */
const CLEARED = 'null';

/**
 * Only the fields the ERP sends are part of it: absent fields are left alone on the platform.
 * A field sent as null (cleared) is part of it as `s=null`, so that clearing differs from leaving
 * alone: the clear is sent once, and an unchanged rerun sends nothing.
 */
export function priceFingerprint(values: PriceValues): string {
  const parts: string[] = [];
  for (const [short, field] of PRICE_FIELDS) {
    const value = values[field];
    if (value === null) parts.push(`${short}=${CLEARED}`);
    else if (value !== undefined) parts.push(`${short}=${Number(value)}`);
  }
  return parts.join('|');
}

/**
 * Prefix of a value sent in a batch whose answer has not been recorded yet (invariant 3 covers
 * the send itself): it equals no value, so a batch whose fate stayed unknown (answer lost,
 * process killed) is sent again by the next run whatever the ERP then says.
 */
export const IN_FLIGHT_PREFIX = '~';

export function inFlightFingerprint(hash: string): string {
  return IN_FLIGHT_PREFIX + hash;
}

export function isInFlightFingerprint(hash: string): boolean {
  return hash.startsWith(IN_FLIGHT_PREFIX);
}

export function refusedFingerprint(hash: string): string {
  return REFUSED_PREFIX + hash;
}

export function isRefusedFingerprint(hash: string): boolean {
  return hash.startsWith(REFUSED_PREFIX);
}

/** Money compared to the cent: a platform that rounds must not look like a platform-side change. */
function sameNumber(a: number | null | undefined, b: number): boolean {
  return typeof a === 'number' && Math.abs(a - b) < 0.005;
}

/** True when the platform's stock equals the acknowledged fingerprint (our own push, an echo). */
export function stockMatches(hash: string, platformQuantity: number | null | undefined): boolean {
  const match = /^q=(-?\d+)$/.exec(hash);
  return match !== null && platformQuantity === Number(match[1]);
}

/** True when every field in the fingerprint equals the platform's value. */
export function pricesMatch(
  hash: string,
  platform: Partial<Record<keyof PriceValues, number | null>>,
): boolean {
  if (hash === '' || isRefusedFingerprint(hash)) return false;
  for (const part of hash.split('|')) {
    const [short, raw] = part.split('=');
    const field = PRICE_FIELDS.find(([s]) => s === short)?.[1];
    if (!field || raw === undefined) return false;
    if (raw === CLEARED) {
      // Cleared by us: the platform holds no value (null; a field it leaves out counts as none).
      if (platform[field] !== null && platform[field] !== undefined) return false;
    } else if (!sameNumber(platform[field], Number(raw))) return false;
  }
  return true;
}
