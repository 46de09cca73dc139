import { describe, expect, it } from 'vitest';
import { createPool } from '../../../../src/sync/frame/pool.js';

describe('createPool', () => {
  it('never runs more tasks at once than its limit', async () => {
    const pool = createPool(3);
    let active = 0;
    let peak = 0;
    for (let i = 0; i < 20; i++) {
      await pool.submit(async () => {
        active += 1;
        peak = Math.max(peak, active);
        await new Promise((r) => setTimeout(r, 2));
        active -= 1;
      });
    }
    await pool.drain();
    expect(peak).toBe(3);
    expect(active).toBe(0);
  });

  it('stops on the first failure and rethrows it', async () => {
    const pool = createPool(2);
    const boom = new Error('fatal');
    await pool.submit(async () => {
      throw boom;
    });
    await expect(pool.drain()).rejects.toBe(boom);
    await expect(pool.submit(async () => {})).rejects.toBe(boom);
  });
});
