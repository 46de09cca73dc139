import { describe, expect, it } from 'vitest';
import { UnrecoverableError } from 'bullmq';
import { redisVersionOk } from '../../../src/queue/checkRedis.js';
import {
  DEFAULT_RATE_LIMIT_WAIT_MS,
  failureOfError,
  failureOfSummary,
  MAX_RATE_LIMIT_WAIT_MS,
  MIN_RATE_LIMIT_WAIT_MS,
  rateLimitWaitMs,
  unrecoverable,
} from '../../../src/queue/jobFailure.js';
import { errorFromResponse } from '../../../src/api/httpErrors.js';
import { classifyFailure } from '../../../src/sync/frame/classifyFailure.js';
import { createTask } from 'node-cron';
import { nextRun, nextRunsOf } from '../../../src/queue/schedules.js';
import { RateLimitedError } from '../../../src/api/errors.js';
import { emptySummary } from '../../../src/sync/frame/summary.js';
import type { RunFailure, RunSummary } from '../../../src/sync/frame/types.js';

const summary = (error?: RunFailure): RunSummary => ({
  ...emptySummary('stock', { full: false, dryRun: false }),
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

/** A 429 answer with this Retry-After, as the client maps it, then as a run reports it. */
const rateLimitedRun = (retryAfter?: string): RunFailure =>
  classifyFailure(
    errorFromResponse(
      429,
      { error: 'rate_limited' },
      retryAfter === undefined ? {} : { 'retry-after': retryAfter },
      { method: 'PATCH', route: '/products/stock/bulk', path: '/api/v2/products/stock/bulk' } as never,
      true,
      'secret',
    ),
  );

describe('the wait of a 429', () => {
  it("carries the platform's Retry-After from the answer through the run's failure to the queue", () => {
    const run = rateLimitedRun('7');
    expect(run).toMatchObject({ code: 'api_rate_limited', kind: 'retryable', retryAfterMs: 7_000 });
    const failure = failureOfSummary(summary(run))!;
    expect(failure.retryAfterMs).toBe(7_000);
    expect(rateLimitWaitMs(failure)).toBe(7_000);
  });

  it('reads an HTTP date as the time left until it', () => {
    const at = new Date(Date.now() + 42_000).toUTCString();
    const wait = rateLimitWaitMs(failureOfSummary(summary(rateLimitedRun(at)))!);
    // An HTTP date has whole seconds: up to a second less than asked, and the test takes a moment.
    expect(wait).toBeGreaterThan(40_000);
    expect(wait).toBeLessThanOrEqual(42_000);
  });

  it('waits the default without a usable Retry-After, and stays within sane bounds', () => {
    expect(rateLimitWaitMs(failureOfSummary(summary(rateLimitedRun()))!)).toBe(DEFAULT_RATE_LIMIT_WAIT_MS);
    expect(rateLimitWaitMs(failureOfSummary(summary(rateLimitedRun('soon')))!)).toBe(
      DEFAULT_RATE_LIMIT_WAIT_MS,
    );
    expect(rateLimitWaitMs(failureOfSummary(summary(rateLimitedRun('0')))!)).toBe(MIN_RATE_LIMIT_WAIT_MS);
    const past = new Date(Date.now() - 60_000).toUTCString();
    expect(rateLimitWaitMs(failureOfSummary(summary(rateLimitedRun(past)))!)).toBe(MIN_RATE_LIMIT_WAIT_MS);
    expect(rateLimitWaitMs(failureOfSummary(summary(rateLimitedRun('86400')))!)).toBe(MAX_RATE_LIMIT_WAIT_MS);
    expect(
      rateLimitWaitMs({ kind: 'retryable', code: 'api_rate_limited', message: 'm', retryAfterMs: 1_500.4 }),
    ).toBe(1_500);
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

  it('finds a rare day of a schedule with seconds without walking every second of the days between', () => {
    const from = new Date(2026, 10, 24, 10, 7, 30);
    const started = performance.now();
    expect(nextRun('* * * 29 2 *', from)).toEqual(new Date(2028, 1, 29, 0, 0, 0));
    expect(nextRun('30 15 4 31 * *', from)).toEqual(new Date(2026, 11, 31, 4, 15, 30));
    // It took minutes before; a day is now skipped with one check.
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it("finds the same next run as node-cron's own match, plain values and special tokens alike", () => {
    const expressions = [
      '*/5 * * * *',
      '0 0 * * 7',
      '0 0 * * 0',
      '15 3 1-3 JAN MON-FRI',
      '0 12 * * 1-5',
      '*/20 8-18 * * *',
      '0 0 L * *',
      '0 0 * * 5L',
      '0 0 * * 1#2',
      '0 9 15W * *',
      '@weekly',
    ];
    const starts = [
      new Date(2026, 10, 24, 10, 7, 30),
      new Date(2027, 2, 28, 1, 59, 59),
      new Date(2028, 11, 31, 23, 59),
    ];
    for (const expression of expressions) {
      const task = createTask(expression, () => undefined);
      try {
        for (const from of starts) {
          const next = nextRun(expression, from);
          expect(next, `${expression} after ${from.toISOString()}`).not.toBeNull();
          expect(task.match(next!), `${expression} at ${next!.toISOString()}`).toBe(true);
          // No earlier minute after `from` (within two days) matches by node-cron's reading either.
          const end = Math.min(next!.getTime(), from.getTime() + 2 * 86_400_000);
          for (
            let at = new Date(from.getTime() + 1_000);
            at.getTime() < end;
            at = new Date(at.getTime() + 60_000)
          ) {
            const minute = new Date(
              at.getFullYear(),
              at.getMonth(),
              at.getDate(),
              at.getHours(),
              at.getMinutes(),
            );
            if (minute > from)
              expect(task.match(minute), `${expression} at ${minute.toISOString()}`).toBe(false);
          }
        }
      } finally {
        void task.destroy();
      }
    }
  });
});
