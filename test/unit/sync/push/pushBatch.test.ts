import { describe, expect, it } from 'vitest';
import { notFoundMatcher } from '../../../../src/sync/push/pushBatch.js';

describe('notFoundMatcher', () => {
  const items = [
    { key: 'A', sku: 'A' },
    { key: 'TS/TS-M', sku: 'TS' },
    { key: 'TS/TS-L', sku: 'TS' },
    { key: 'B/B-1', sku: 'B' },
  ];
  const missing = (refs: { sku: string; variantSku?: string }[]): string[] =>
    items.filter(notFoundMatcher(refs)).map((item) => item.key);

  it('matches an item echoed as sent, and only that one', () => {
    expect(missing([{ sku: 'TS', variantSku: 'TS-L' }])).toEqual(['TS/TS-L']);
    expect(missing([{ sku: 'A' }])).toEqual(['A']);
    expect(missing([])).toEqual([]);
  });

  it('never acknowledges a variant whose SKU alone was echoed as not found', () => {
    expect(missing([{ sku: 'TS' }, { sku: 'B', variantSku: 'B-9' }])).toEqual(['TS/TS-M', 'TS/TS-L']);
  });
});
