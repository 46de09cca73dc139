import { describe, expect, it } from 'vitest';
import { UnrecoverableError } from 'bullmq';
import { redisVersionOk } from '../../../src/queue/checkRedis.js';
import { failureOfError, failureOfSummary, unrecoverable } from '../../../src/queue/runFailure.js';
import { nextRunsOf } from '../../../src/queue/schedules.js';
import { RateLimitedError } from '../../../src/api/errors.js';
import type { RunFailure, RunSummary } from '../../../src/sync/types.js';

const summary = (error?: RunFailure): RunSummary => ({
  pipeline: 'stock',
  read: 0,
  unchanged: 0,
  sent: 0,
  applied: 0,
  notFound: 0,
  rejected: 0,
  failed: 0,
  requests: 0,
  writeRequests: 0,
  seconds: 0,
  full: false,
  dryRun: false,
  extra: {},
  ...(error === undefined ? {} : { error }),
});

describe('failures by kind', () => {
  it('takes the kind of a run from its typed failure', () => {
    expect(failureOfSummary(summary())).toBeNull();
    expect(failureOfSummary(summary({ code: 'api_auth', kind: 'fatal', message: 'refused' }))).toEqual({
      code: 'api_auth',
      kind: 'fatal',
      message: 'api_auth: refused',
    });
    expect(
      failureOfSummary(
        summary({ code: 'api_rate_limited', kind: 'retryable', message: '3 item(s) not confirmed' }),
      ),
    ).toMatchObject({ kind: 'retryable', code: 'api_rate_limited' });
  });

  it('keeps the Retry-After of a 429 and makes permanent failures unrecoverable', () => {
    const error = new RateLimitedError(
      'slow down',
      { method: 'PATCH', path: '/products/stock/bulk' } as never,
      2_500,
    );
    expect(failureOfError(error)).toMatchObject({
      kind: 'retryable',
      code: 'api_rate_limited',
      retryAfterMs: 2_500,
    });
    expect(failureOfError(new Error('bug'))).toMatchObject({ kind: 'permanent', code: 'internal' });
    expect(unrecoverable({ kind: 'permanent', code: 'x', message: 'm' })).toBeInstanceOf(UnrecoverableError);
  });
});

describe('Redis version and schedules', () => {
  it('needs Redis 6.2 or newer', () => {
    expect(['6.2.0', '7.0.15', '10.0.1'].map(redisVersionOk)).toEqual([true, true, true]);
    expect(['6.0.16', '5.0.7', 'x'].map(redisVersionOk)).toEqual([false, false, false]);
  });

  it('computes the next run of each schedule, none for "off"', () => {
    const from = new Date('2026-11-24T10:07:30Z');
    const next = nextRunsOf(
      {
        catalog: 'off',
        products: 'off',
        orders: '* * * * *',
        stock: '*/10 * * * * *',
        prices: '*/15 * * * *',
        feedback: 'off',
        'erp-orders': 'off',
      },
      from,
    );
    expect(next.catalog).toBeNull();
    expect(next.orders).toBe('2026-11-24T10:08:00.000Z');
    expect(next.stock).toBe('2026-11-24T10:07:40.000Z');
    expect(next.prices).toBe('2026-11-24T10:15:00.000Z');
  });
});
