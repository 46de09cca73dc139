import { describe, expect, it } from 'vitest';
import { memo } from '../../../../src/server/console/memo.js';

describe('memo', () => {
  it('shares one call among concurrent callers and keeps its answer for the time given', async () => {
    let now = 0;
    let calls = 0;
    const read = memo(
      async () => ++calls,
      1_000,
      () => now,
    );
    expect(await Promise.all([read(), read(), read()])).toEqual([1, 1, 1]);
    now = 999;
    expect(await read()).toBe(1);
    now = 1_000;
    expect(await read()).toBe(2);
    expect(calls).toBe(2);
  });

  it('does not keep a failure: the next caller tries again', async () => {
    let calls = 0;
    const read = memo(async () => {
      calls += 1;
      if (calls === 1) throw new Error('Redis away');
      return 'ok';
    }, 60_000);
    await expect(read()).rejects.toThrow('Redis away');
    expect(await read()).toBe('ok');
  });
});
