import { describe, expect, it } from 'vitest';
import type { ConfigError } from '../../../src/config.js';
import { loadConfig, parseConfig } from '../../../src/config.js';

const base = {
  api: { baseUrl: 'http://127.0.0.1:1/api/v2', apiKey: 'k' },
  erp: { type: 'file', path: '/tmp' },
};

function issuesOf(raw: Record<string, unknown>): string[] {
  try {
    parseConfig({ ...base, ...raw });
  } catch (error) {
    return (error as ConfigError).issues;
  }
  return [];
}

describe('daemon configuration', () => {
  it('has the documented defaults', () => {
    const config = parseConfig(base);
    expect(config.redis).toEqual({ url: 'redis://127.0.0.1:6379', prefix: 'erp-sync' });
    expect(config.schedules).toEqual({
      catalog: '*/5 * * * *',
      products: '*/15 * * * *',
      orders: '* * * * *',
      stock: '* * * * *',
      prices: '*/15 * * * *',
      feedback: '* * * * *',
      'erp-orders': '*/5 * * * *',
    });
    expect(config.server).toEqual({ host: '127.0.0.1', port: 9464, dashboard: {} });
    expect(config.shutdownGraceSeconds).toBe(30);
  });

  it('takes server.dashboard.readOnly as a boolean only, unset by default (read-only beyond loopback)', () => {
    expect(parseConfig(base).server.dashboard.readOnly).toBeUndefined();
    expect(parseConfig({ ...base, server: { dashboard: { readOnly: false } } }).server.dashboard).toEqual({
      readOnly: false,
    });
    expect(issuesOf({ server: { dashboard: { readOnly: 'no' } } })).toEqual([
      'server.dashboard.readOnly: Invalid input: expected boolean, received string',
    ]);
    expect(issuesOf({ server: { dashboard: { readonly: true } } })).toEqual([
      'server.dashboard.readonly: unknown key',
    ]);
  });

  it('accepts 6-field cron expressions and "off"', () => {
    const config = parseConfig({ ...base, schedules: { stock: '*/1 * * * * *', prices: 'off' } });
    expect(config.schedules.stock).toBe('*/1 * * * * *');
    expect(config.schedules.prices).toBe('off');
  });

  it('refuses a bad cron expression, an unknown pipeline and an unknown top-level key, naming each', () => {
    expect(issuesOf({ schedules: { stock: '* * *' } })).toEqual([
      'schedules.stock: a cron expression with 5 fields (6 with seconds) or "off"',
    ]);
    expect(issuesOf({ schedules: { stocks: '* * * * *' } })).toEqual(['schedules.stocks: unknown key']);
    expect(issuesOf({ schedule: {} })).toEqual(['schedule: unknown key']);
    expect(issuesOf({ redis: { prefix: 'a:b' } })).toEqual(['redis.prefix: no ":" and no spaces']);
  });

  it('has no job limiter unless one is set, and refuses an unknown key of the limiter', () => {
    expect(parseConfig(base).queue.rateLimit).toBeNull();
    expect(
      parseConfig({ ...base, queue: { rateLimit: { max: 50, perSeconds: 1 } } }).queue.rateLimit,
    ).toEqual({
      max: 50,
      perSeconds: 1,
    });
    expect(issuesOf({ queue: { rateLimit: { max: 50, perSeconds: 1, requests: 3 } } })).toEqual([
      'queue.rateLimit.requests: unknown key',
    ]);
  });

  it('takes REDIS_URL from the environment over the file', () => {
    const config = loadConfig({
      env: { CMS_BASE_URL: base.api.baseUrl, CMS_API_KEY: 'k', REDIS_URL: 'redis://10.0.0.5:6380' },
      overrides: { erp: base.erp, redis: { prefix: 'p' } },
    });
    expect(config.redis).toEqual({ url: 'redis://10.0.0.5:6380', prefix: 'p' });
  });
});
