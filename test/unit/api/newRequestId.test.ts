import { describe, expect, it } from 'vitest';
import { newRequestId } from '../../../src/api/newRequestId.js';

describe('newRequestId', () => {
  it('is a UUID v4', () => {
    for (let i = 0; i < 1000; i++)
      expect(newRequestId()).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('differs at each call', () => {
    const ids = new Set(Array.from({ length: 10_000 }, () => newRequestId()));
    expect(ids.size).toBe(10_000);
  });
});
