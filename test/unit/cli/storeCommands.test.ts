import { afterEach, describe, expect, it } from 'vitest';
import { formatRejects, productLinkLines } from '../../../src/cli/storeCommands.js';
import { openStore } from '../../../src/store/Store.js';
import { listingStore } from '../../support/listingStore.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});

describe('rejects and links listings', () => {
  it('lists open rejects with their place, and resolved ones only with --all', () => {
    const { store } = listingStore(cleanups);
    const open = formatRejects(store, { all: false, json: false });
    expect(open).toContain('stock.csv:4');
    expect(open).not.toContain('not on the platform');
    expect(open).toMatch(/1 open\n$/);
    expect(formatRejects(store, { all: true, json: false })).toContain('not on the platform');
    expect(formatRejects(store, { pipeline: 'orders', all: false, json: false })).toBe(
      'no open rejects for orders\n',
    );
    const json = JSON.parse(formatRejects(store, { all: true, json: true }));
    expect(json).toHaveLength(2);
  });

  it('streams product links as valid JSON, and says when there are none', () => {
    const { store } = listingStore(cleanups);
    const links = JSON.parse([...productLinkLines(store, { json: true })].join(''));
    expect(links).toEqual([
      { sku: 'A-1', variantSku: null, productId: 1, variantId: null, platformUpdatedAt: null },
      { sku: 'TS', variantSku: 'TS-M', productId: 2, variantId: 21, platformUpdatedAt: null },
    ]);
    const empty = openStore(':memory:');
    expect(JSON.parse([...productLinkLines(empty, { json: true })].join(''))).toEqual([]);
    expect([...productLinkLines(empty, { json: false })].join('')).toMatch(/^no product links/);
    empty.close();
  });
});
