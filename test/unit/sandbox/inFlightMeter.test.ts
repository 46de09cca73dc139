import { describe, expect, it } from 'vitest';
import { InFlightMeter } from '../../../src/sandbox/inFlightMeter.js';

describe('InFlightMeter', () => {
  it('counts requests in flight per route, keeps the peak until reset, and ends a request once', () => {
    const meter = new InFlightMeter();
    const a = meter.enter('PATCH /bulk');
    const b = meter.enter('PATCH /bulk');
    const other = meter.enter('GET /orders');
    expect([meter.now('PATCH /bulk'), meter.peak('PATCH /bulk'), meter.now('GET /orders')]).toEqual([
      2, 2, 1,
    ]);
    a();
    a(); // the answer's 'finish' and the connection's 'close' both end it
    expect([meter.now('PATCH /bulk'), meter.peak('PATCH /bulk')]).toEqual([1, 2]);
    meter.resetPeak('PATCH /bulk');
    expect(meter.peak('PATCH /bulk')).toBe(1);
    const c = meter.enter('PATCH /bulk');
    expect(meter.peak('PATCH /bulk')).toBe(2);
    b();
    c();
    other();
    expect([meter.now('PATCH /bulk'), meter.peak('PATCH /bulk'), meter.peak('PUT /none')]).toEqual([0, 2, 0]);
  });
});
