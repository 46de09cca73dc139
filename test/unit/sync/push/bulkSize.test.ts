import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../../src/config.js';
import { openStore, type Store } from '../../../../src/store/index.js';
import { BULK_PROBE_AFTER_MS, bulkSizing } from '../../../../src/sync/push/bulkSize.js';

let store: Store | undefined;
afterEach(() => {
  store?.close();
  store = undefined;
});

function sizingAt(clock: { now: number }, batchSize = 1000) {
  store ??= openStore(':memory:');
  const config = parseConfig({
    api: { baseUrl: 'http://127.0.0.1:1/api/v2', apiKey: 'k' },
    erp: { type: 'file', path: '/tmp' },
    sync: { batchSize },
  });
  return bulkSizing({ store, config }, 'stock', () => clock.now);
}

describe('bulkSizing', () => {
  it('starts at sync.batchSize, takes a named limit, halves an unnamed one, never rises on a later larger refusal', () => {
    const clock = { now: 1_000_000 };
    const sizing = sizingAt(clock);
    expect(sizing.size()).toBe(1000);
    sizing.refused(1000, 400);
    expect(sizing.size()).toBe(400);
    sizing.refused(400);
    expect(sizing.size()).toBe(200);
    // A concurrent request refused at 1000 learns no more than what is already known.
    sizing.refused(1000);
    expect(sizing.size()).toBe(200);
    sizing.refused(1);
    expect(sizing.size()).toBe(1);
  });

  it('probes twice the learned size after a day; a taken probe raises it, reaching the ceiling forgets it', () => {
    const clock = { now: 5_000_000 };
    const sizing = sizingAt(clock, 800);
    sizing.refused(800, 300);
    clock.now += BULK_PROBE_AFTER_MS - 1;
    expect(sizing.size()).toBe(300);
    clock.now += 1;
    expect(sizing.size()).toBe(600);
    sizing.accepted(600);
    expect(store!.bulkLimits.get('stock')).toEqual({ size: 600, learnedAt: clock.now });
    expect(sizing.size()).toBe(600);
    clock.now += BULK_PROBE_AFTER_MS;
    expect(sizing.size()).toBe(800);
    sizing.accepted(800);
    expect(store!.bulkLimits.get('stock')).toBeNull();
    expect(sizing.size()).toBe(800);
  });

  it('a refused probe keeps the limit and restarts the wait', () => {
    const clock = { now: 0 };
    const sizing = sizingAt(clock);
    sizing.refused(1000, 100);
    clock.now += BULK_PROBE_AFTER_MS;
    expect(sizing.size()).toBe(200);
    sizing.refused(200, 100);
    expect(sizing.size()).toBe(100);
    expect(store!.bulkLimits.get('stock')?.learnedAt).toBe(clock.now);
    sizing.accepted(100);
    expect(sizing.size()).toBe(100);
  });
});
