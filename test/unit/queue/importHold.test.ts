import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/logger.js';
import { ImportHold } from '../../../src/queue/importHold.js';
import type { RunFailure } from '../../../src/sync/frame/types.js';

const down: RunFailure = {
  code: 'erp_unavailable',
  kind: 'retryable',
  message: 'Tryton at http://h/erp/ did not answer',
};
const noRight: RunFailure = { code: 'erp_permission', kind: 'permanent', message: 'a right is missing' };
const badOrder: RunFailure = { code: 'erp_query', kind: 'permanent', message: 'value too long' };

function hold() {
  let now = 1_000_000;
  const changes: boolean[] = [];
  const h = new ImportHold({
    holdMs: 5_000,
    logger: silentLogger(),
    onChange: (held) => changes.push(held),
    now: () => now,
  });
  return { h, changes, tick: (ms: number) => (now += ms) };
}

describe('the daemon holds order imports while the ERP fails them in a row', () => {
  it('holds after three side failures in a row, lets one import try per hold, and ends on a success', () => {
    const { h, changes, tick } = hold();
    h.failed(down);
    h.failed(noRight);
    expect(h.waitMs()).toBe(0);
    expect(h.reason()).toBeNull();
    h.failed(down);
    expect(h.waitMs()).toBe(5_000);
    expect(h.reason()).toBe(
      `order imports held since ${new Date(1_000_000).toISOString()}: 3 in a row failed: erp_unavailable: Tryton at http://h/erp/ did not answer`,
    );
    expect(changes).toEqual([true]);
    tick(5_000);
    expect(h.waitMs()).toBe(0); // one import may try
    h.failed(down); // it failed: the next wait
    expect(h.waitMs()).toBe(5_000);
    expect(changes).toEqual([true]);
    tick(5_000);
    h.succeeded();
    expect(h.waitMs()).toBe(0);
    expect(h.reason()).toBeNull();
    expect(changes).toEqual([true, false]);
  });

  it('takes a failure of the order itself, or a success, as the ERP answering', () => {
    const { h, changes } = hold();
    h.failed(down);
    h.failed(down);
    h.failed(badOrder);
    h.failed(down);
    h.failed(down);
    expect(h.waitMs()).toBe(0);
    h.succeeded();
    h.failed(down);
    expect(h.reason()).toBeNull();
    expect(changes).toEqual([]);
  });
});
