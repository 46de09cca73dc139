import { describe, expect, it } from 'vitest';
import { CsrfTokens } from '../../../../src/server/console/CsrfTokens.js';

describe('CsrfTokens', () => {
  it('takes a token it issued and refuses a missing, altered, foreign or malformed one', () => {
    const tokens = new CsrfTokens();
    const token = tokens.issue();
    expect(tokens.verify(token)).toBe(true);
    expect(tokens.verify(undefined)).toBe(false);
    expect(tokens.verify('')).toBe(false);
    expect(tokens.verify(['x'])).toBe(false);
    const [issued, mac] = token.split('.') as [string, string];
    expect(tokens.verify(`${Number(issued) + 1}.${mac}`)).toBe(false);
    expect(tokens.verify(`${issued}.${mac.slice(0, -1)}${mac.endsWith('A') ? 'B' : 'A'}`)).toBe(false);
    // another process (a restart) has another key
    expect(new CsrfTokens().verify(token)).toBe(false);
  });

  it('refuses a token older than its lifetime, or from the future', () => {
    let now = 1_000_000_000_000;
    const tokens = new CsrfTokens({ maxAgeMs: 60_000, now: () => now });
    const token = tokens.issue();
    now += 59_000;
    expect(tokens.verify(token)).toBe(true);
    now += 2_000;
    expect(tokens.verify(token)).toBe(false);
    now -= 3_600_000;
    expect(tokens.verify(token)).toBe(false);
  });
});
