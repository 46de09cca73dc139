import { describe, expect, it } from 'vitest';
import { reasonsByIndex, sendSplitting, type Refusal } from '../../../../src/sync/push/splitOnRefusal.js';

class Refused extends Error {
  constructor(readonly fieldErrors?: Record<string, string[]>) {
    super('the request was refused');
  }
}

/** A platform that refuses any request containing a negative number, naming them or not. */
function platform(named: boolean) {
  const calls: number[][] = [];
  const send = async (items: number[]) => {
    calls.push(items);
    const bad = items.flatMap((v, i) => (v < 0 ? [i] : []));
    if (bad.length === 0) return { updated: items.length };
    throw new Refused(
      named ? Object.fromEntries(bad.map((i) => [`items.${i}.quantity`, ['must be at least 0']])) : undefined,
    );
  };
  const classify = (error: unknown): Refusal | null =>
    error instanceof Refused ? { message: error.message, byIndex: reasonsByIndex(error.fieldErrors) } : null;
  return { calls, send, classify };
}

describe('sendSplitting', () => {
  it('sends an acceptable batch in one request', async () => {
    const p = platform(true);
    const result = await sendSplitting([1, 2, 3], p);
    expect(result.requests).toBe(1);
    expect(result.accepted.flatMap((a) => a.items)).toEqual([1, 2, 3]);
    expect(result.rejected).toEqual([]);
  });

  it('isolates named offenders directly and applies the rest in a second request', async () => {
    const p = platform(true);
    const result = await sendSplitting([1, -2, 3, -4, 5], p);
    expect(result.requests).toBe(2);
    expect(result.rejected).toEqual([
      { item: -2, reason: 'quantity: must be at least 0' },
      { item: -4, reason: 'quantity: must be at least 0' },
    ]);
    expect(result.accepted.flatMap((a) => a.items)).toEqual([1, 3, 5]);
  });

  it('splits in halves until an unnamed offender stands alone', async () => {
    const p = platform(false);
    const items = Array.from({ length: 16 }, (_, i) => (i === 11 ? -1 : i));
    const result = await sendSplitting(items, p);
    expect(result.rejected).toEqual([{ item: -1, reason: 'the request was refused' }]);
    expect(result.accepted.flatMap((a) => a.items).sort((a, b) => a - b)).toEqual(
      items.filter((v) => v >= 0),
    );
    // 1 + 2 + 2 + 2 + 2 requests down a binary tree of depth 4
    expect(result.requests).toBe(9);
  });

  it('rethrows errors that are not refusals', async () => {
    const boom = new Error('network down');
    await expect(
      sendSplitting([1], {
        send: async () => {
          throw boom;
        },
        classify: () => null,
      }),
    ).rejects.toBe(boom);
  });

  it('ignores error keys that name no item and falls back to halving', async () => {
    let calls = 0;
    const result = await sendSplitting([1, 2], {
      send: async (items) => {
        calls += 1;
        if (items.includes(2)) throw new Refused({ items: ['too many'] });
        return {};
      },
      classify: (e) =>
        e instanceof Refused ? { message: 'refused', byIndex: reasonsByIndex(e.fieldErrors) } : null,
    });
    expect(calls).toBe(3);
    expect(result.rejected).toEqual([{ item: 2, reason: 'refused' }]);
  });
});

describe('reasonsByIndex', () => {
  it('joins several fields of the same item', () => {
    const reasons = reasonsByIndex({
      'items.0.price': ['must be a number'],
      'items.0.vat_rate': ['0 to 100'],
    });
    expect(reasons.get(0)).toBe('price: must be a number; vat_rate: 0 to 100');
  });
});
