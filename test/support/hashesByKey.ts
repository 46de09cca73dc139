import { expect } from 'vitest';
/** The scan's read (`fingerprints.hashes`, one value per key in the keys' order) as a Map: keys with no fingerprint left out. */
export function hashesByKey(
  keys: readonly string[],
  hashes: readonly (string | null | undefined)[],
): Map<string, string | null> {
  expect(hashes).toHaveLength(keys.length);
  const out = new Map<string, string | null>();
  keys.forEach((key, at) => {
    const hash = hashes[at];
    if (hash !== undefined) out.set(key, hash);
  });
  return out;
}
