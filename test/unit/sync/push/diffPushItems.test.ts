import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../../../src/store/index.js';
import type { SyncContext } from '../../../../src/sync/frame/types.js';
import { emptySummary } from '../../../../src/sync/frame/summary.js';
import { diffPushItems, type PushScan } from '../../../../src/sync/push/diffPushItems.js';
import { refusedFingerprint, stockFingerprint } from '../../../../src/sync/push/fingerprint.js';
import type { PushItem } from '../../../../src/sync/push/pushBatch.js';

let store: Store;
beforeEach(() => {
  store = openStore(':memory:');
});
afterEach(() => store.close());

/** diffPushItems reads and writes the store alone. */
const contextOf = (store: Store) => ({ store }) as unknown as SyncContext;

function scanOf(options: { full?: boolean; openRejects?: string[] } = {}): PushScan {
  return {
    pipeline: 'stock',
    generation: 2,
    full: options.full ?? false,
    dryRun: false,
    openRejects: new Set(options.openRejects ?? []),
    stillRejected: new Set(),
    after: null,
    receipt: null,
  };
}

function item(key: string, quantity: number): PushItem<{ sku: string; quantity: number }> {
  return { key, sku: key, hash: stockFingerprint(quantity), wire: { sku: key, quantity } };
}

const acknowledge = (key: string, hash: string) =>
  store.fingerprints.putMany('stock', [{ key, hash, generation: 1 }]);

function diff(items: PushItem<{ sku: string; quantity: number }>[], scan = scanOf()) {
  const summary = emptySummary('stock', { full: scan.full, dryRun: false });
  const pending = diffPushItems(contextOf(store), scan, items, summary);
  return { pending: pending.map((i) => i.key), summary, scan };
}

describe('diffPushItems', () => {
  it('sends an item never pushed and one whose value changed, and counts an acknowledged equal one as unchanged', () => {
    acknowledge('SAME', stockFingerprint(5));
    acknowledge('CHANGED', stockFingerprint(5));
    const { pending, summary } = diff([item('NEW', 1), item('SAME', 5), item('CHANGED', 6)]);
    expect(pending).toEqual(['NEW', 'CHANGED']);
    expect(summary.unchanged).toBe(1);
    expect(summary.notFound + summary.rejected).toBe(0);
  });

  it('holds back an item the platform reported missing, counted as not found and still rejected', () => {
    acknowledge('GONE', stockFingerprint(3));
    store.fingerprints.markMissing('stock', ['GONE'], 1);
    const { pending, summary, scan } = diff([item('GONE', 4)]);
    expect(pending).toEqual([]);
    expect(summary.notFound).toBe(1);
    expect(summary.extra.knownMissing).toBe(1);
    expect([...scan.stillRejected]).toEqual(['GONE']);
  });

  it('does not resend a value the platform refused, but sends a new value of the same item', () => {
    acknowledge('REFUSED', refusedFingerprint(stockFingerprint(-1)));
    const same = diff([item('REFUSED', -1)]);
    expect(same.pending).toEqual([]);
    expect(same.summary.rejected).toBe(1);
    expect([...same.scan.stillRejected]).toEqual(['REFUSED']);
    expect(diff([item('REFUSED', 2)]).pending).toEqual(['REFUSED']);
  });

  it('ignores every fingerprint on a full scan', () => {
    acknowledge('SAME', stockFingerprint(5));
    acknowledge('GONE', stockFingerprint(3));
    store.fingerprints.markMissing('stock', ['GONE'], 1);
    const { pending, summary } = diff([item('SAME', 5), item('GONE', 3)], scanOf({ full: true }));
    expect(pending).toEqual(['SAME', 'GONE']);
    expect(summary.unchanged + summary.notFound).toBe(0);
  });

  it('ends the earlier reject of a good item and keeps the one of an item refused again', () => {
    acknowledge('REFUSED', refusedFingerprint(stockFingerprint(-1)));
    store.rejects.recordMany([
      { pipeline: 'stock', key: 'FIXED', reason: 'quantity must be at least 0' },
      { pipeline: 'stock', key: 'REFUSED', reason: 'refused by the platform' },
    ]);
    const scan = scanOf({ openRejects: ['FIXED', 'REFUSED'] });
    const { pending } = diff([item('FIXED', 1), item('REFUSED', -1)], scan);
    expect(pending).toEqual(['FIXED']);
    expect(store.rejects.countOpen('stock', 'FIXED')).toBe(0);
    expect(store.rejects.countOpen('stock', 'REFUSED')).toBe(1);
    expect([...scan.openRejects]).toEqual(['REFUSED']);
  });
});
