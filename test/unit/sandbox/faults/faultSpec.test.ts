import { describe, expect, it } from 'vitest';
import { faultApplies, parseFaultSpec } from '../../../../src/sandbox/faults/faultSpec.js';
import { RateLimiter } from '../../../../src/sandbox/faults/rateLimiter.js';

describe('parseFaultSpec', () => {
  it('reads every fault', () => {
    expect(
      parseFaultSpec(
        'latency=20-200,error_rate=0.05,rate_limit=50/s,drop_rate=0.01,stall_rate=0.02,only=POST /orders|GET /products',
      ),
    ).toEqual({
      latency: { min: 20, max: 200 },
      errorRate: 0.05,
      rateLimit: 50,
      dropRate: 0.01,
      stallRate: 0.02,
      only: [
        { method: 'POST', prefix: '/orders' },
        { method: 'GET', prefix: '/products' },
      ],
    });
  });

  it('means no faults when empty or null', () => {
    expect(parseFaultSpec(null).errorRate).toBe(0);
    expect(parseFaultSpec('').latency).toBeNull();
  });

  it.each([
    'latency=abc',
    'latency=200-20',
    'error_rate=1.5',
    'rate_limit=0/s',
    'rate_limit=5',
    'boom=1',
    'error_rate',
    'only=FETCH /x',
  ])('refuses %s', (spec) => {
    expect(() => parseFaultSpec(spec)).toThrow(/fault spec/);
  });

  it('matches only= by method and path prefix on segment boundaries', () => {
    const spec = parseFaultSpec('error_rate=1,only=POST /orders|/tags');
    expect(faultApplies(spec, 'POST', '/orders')).toBe(true);
    expect(faultApplies(spec, 'POST', '/orders/5/awb')).toBe(true);
    expect(faultApplies(spec, 'GET', '/orders')).toBe(false);
    expect(faultApplies(spec, 'POST', '/ordersx')).toBe(false);
    expect(faultApplies(spec, 'DELETE', '/tags/3')).toBe(true);
  });
});

describe('RateLimiter', () => {
  it('allows N per second per key and tells how long to wait', () => {
    const limiter = new RateLimiter(2);
    expect([limiter.take('a', 0), limiter.take('a', 0), limiter.take('a', 0)]).toEqual([0, 0, 1]);
    expect(limiter.take('b', 0)).toBe(0);
    expect(limiter.take('a', 500)).toBe(0);
  });
});
