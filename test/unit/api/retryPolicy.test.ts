import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import {
  NotFoundError,
  RateLimitedError,
  ServerError,
  type RequestContext,
} from '../../../src/api/errors.js';
import { backoffDelay, retryDelay, withRetries, type RetrySettings } from '../../../src/api/retryPolicy.js';

const ctx: RequestContext = { method: 'GET', path: '/stats', route: '/stats', requestId: 'r', status: 500 };
const settings: RetrySettings = { retries: 5, deadlineMs: 5_000, minBackoffMs: 10, maxBackoffMs: 200 };
const serverError = () => new ServerError('GET /stats -> 500', ctx);

/** An attempt function failing with `errors` in turn, then resolving 'ok'; records when it ran. */
function attempts(errors: Error[]) {
  const at: number[] = [];
  return {
    at,
    run: async () => {
      at.push(performance.now());
      const error = errors[at.length - 1];
      if (error) throw error;
      return 'ok';
    },
  };
}

describe('backoffDelay', () => {
  it('doubles per retry, jitters within [step, 2 step) and stops at the maximum', () => {
    expect([0, 1, 2, 3].map((i) => backoffDelay(i, settings, () => 0))).toEqual([10, 20, 40, 80]);
    expect([0, 1, 2, 3].map((i) => backoffDelay(i, settings, () => 0.5))).toEqual([15, 30, 60, 120]);
    expect(backoffDelay(10, settings, () => 0)).toBe(200);
    const drawn = Array.from({ length: 50 }, () => backoffDelay(2, { minBackoffMs: 100, maxBackoffMs: 1e6 }));
    expect(Math.min(...drawn)).toBeGreaterThanOrEqual(400);
    expect(Math.max(...drawn)).toBeLessThan(800);
    expect(new Set(drawn).size).toBeGreaterThan(10);
  });

  it('waits at least Retry-After, plus at most one minimum step of jitter', () => {
    const limited = new RateLimitedError('429', { ...ctx, status: 429 }, 1_000);
    expect(retryDelay(limited, 3, settings, () => 0)).toBe(1_000);
    expect(retryDelay(limited, 3, settings, () => 0.99)).toBe(1_010);
    expect(retryDelay(new ServerError('503', { ...ctx, status: 503 }, 2_000), 0, settings, () => 0)).toBe(
      2_000,
    );
    expect(retryDelay(serverError(), 1, settings, () => 0)).toBe(20);
  });
});

describe('withRetries', () => {
  it('retries retryable errors after growing waits, and never the others', async () => {
    const flaky = attempts([serverError(), serverError(), serverError()]);
    await expect(withRetries(flaky.run, settings, () => {})).resolves.toBe('ok');
    const gaps = flaky.at.slice(1).map((t, i) => t - flaky.at[i]!);
    expect(gaps).toHaveLength(3);
    gaps.forEach((gap, i) => expect(gap).toBeGreaterThanOrEqual(10 * 2 ** i - 2));

    const missing = attempts([new NotFoundError('404', { ...ctx, status: 404 })]);
    await expect(withRetries(missing.run, settings, () => {})).rejects.toBeInstanceOf(NotFoundError);
    expect(missing.at).toHaveLength(1);
  });

  it('ends at once with the last error when the wait would not leave time for an attempt', async () => {
    // A wait of seconds against a bound of one: a loaded machine cannot blur the two.
    const limited = new RateLimitedError('429', { ...ctx, status: 429 }, 4_950);
    const calls = attempts([limited]);
    const started = performance.now();
    const retried: number[] = [];
    await expect(
      withRetries(calls.run, { ...settings, deadlineMs: 5_000 }, (_e, _n, delay) => retried.push(delay)),
    ).rejects.toBe(limited);
    expect(calls.at).toHaveLength(1);
    expect(retried).toEqual([]);
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('stops waiting when the client closes, with the last error, and leaves no listener behind', async () => {
    const stop = new AbortController();
    const abort = new AbortController();
    const limited = new RateLimitedError('429', { ...ctx, status: 429 }, 30_000);
    const calls = attempts([limited]);
    const pending = withRetries(calls.run, { ...settings, deadlineMs: 60_000 }, () => {}, {
      abort: abort.signal,
      stop: stop.signal,
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const started = performance.now();
    stop.abort();
    await expect(pending).rejects.toBe(limited);
    expect(performance.now() - started).toBeLessThan(5_000); // not the 30 s wait
    expect(calls.at).toHaveLength(1);
    expect(getEventListeners(abort.signal, 'abort')).toHaveLength(0);
    expect(getEventListeners(stop.signal, 'abort')).toHaveLength(0);
  });

  it('removes its listeners from the caller signal after every wait', async () => {
    const abort = new AbortController();
    const flaky = attempts([serverError(), serverError()]);
    await withRetries(flaky.run, settings, () => {}, { abort: abort.signal });
    expect(flaky.at).toHaveLength(3);
    expect(getEventListeners(abort.signal, 'abort')).toHaveLength(0);
  });

  it("rejects a wait with the caller signal's reason", async () => {
    const abort = new AbortController();
    const calls = attempts([new RateLimitedError('429', { ...ctx, status: 429 }, 30_000)]);
    const pending = withRetries(calls.run, { ...settings, deadlineMs: 60_000 }, () => {}, {
      abort: abort.signal,
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    abort.abort(new Error('shutting down'));
    await expect(pending).rejects.toThrow('shutting down');
  });
});
