import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from '../../../src/api/retryAfter.js';

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-11-21T06:00:00Z');

  it('reads delta-seconds, including fractions', () => {
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('1.5', now)).toBe(1500);
  });

  it('reads an HTTP date as the time left until it', () => {
    expect(parseRetryAfter('Sat, 21 Nov 2026 06:00:05 GMT', now)).toBe(5000);
  });

  it('never returns a negative delay for a date in the past', () => {
    expect(parseRetryAfter('Sat, 21 Nov 2026 05:59:00 GMT', now)).toBe(0);
  });

  it('returns null for an absent or unreadable header', () => {
    expect(parseRetryAfter(undefined, now)).toBeNull();
    expect(parseRetryAfter('', now)).toBeNull();
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter('-3', now)).toBeNull();
  });

  it('uses the first value when the header is repeated', () => {
    expect(parseRetryAfter(['2', '9'], now)).toBe(2000);
  });
});
