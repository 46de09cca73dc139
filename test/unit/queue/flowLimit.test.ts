import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config.js';
import { flowLimitMs } from '../../../src/queue/flowLimit.js';

const base = {
  api: { baseUrl: 'http://127.0.0.1:1/api/v2', apiKey: 'k' },
  erp: { type: 'file', path: '/tmp' },
};

describe('the limit of a push flow', () => {
  it('grows with the rounds of batches the pushes queue sends at once, from the timeouts and attempts', () => {
    const config = parseConfig(base);
    // Defaults: 5 attempts x (120 s deadline + 300 s longest 429 wait) + 2+4+8+16 s backoff = 2130 s a round.
    const round = 2_130_000;
    const ttl = 30_000;
    expect(flowLimitMs(1, config)).toBe(round + ttl);
    expect(flowLimitMs(4, config)).toBe(round + ttl); // sync.concurrency 4: one round
    expect(flowLimitMs(5, config)).toBe(2 * round + ttl);
    expect(flowLimitMs(0, config)).toBe(round + ttl);
    const tighter = parseConfig({
      ...base,
      api: { ...base.api, deadlineMs: 10_000 },
      queue: { attempts: 2 },
    });
    expect(flowLimitMs(1, tighter)).toBe(2 * 310_000 + 2_000 + ttl);
  });

  it('is lowered, never raised, by queue.flowLimitSeconds', () => {
    expect(flowLimitMs(100, parseConfig({ ...base, queue: { flowLimitSeconds: 600 } }))).toBe(600_000);
    const high = parseConfig({ ...base, queue: { flowLimitSeconds: 10 ** 9 } });
    expect(flowLimitMs(1, high)).toBe(flowLimitMs(1, parseConfig(base)));
  });
});
