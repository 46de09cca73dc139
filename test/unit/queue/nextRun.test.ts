import { parse } from 'node-cron';
import { afterEach, describe, expect, it } from 'vitest';
import { nextRun, nextRunsOf } from '../../../src/queue/schedules.js';
import { DEFAULT_SCHEDULES } from '../../../src/config/daemonConfigSchema.js';

const zone = process.env.TZ;
afterEach(() => {
  // Node reads TZ again when it is assigned: the zone of each case, then the worker's own.
  if (zone === undefined) delete process.env.TZ;
  else process.env.TZ = zone;
});

/**
 * nextRun as it was before the first day's slots before `from` were skipped: every slot of the day
 * from midnight made into a Date and compared, its local fields read as node-cron reads them
 * (plain values only; parse gives second, minute, hour, day of month, month, weekday in that order).
 */
function everySlotNextRun(expression: string, from: Date): Date | null {
  const fields = parse(expression);
  const lists = Object.values(fields) as unknown[][];
  const matches = (at: Date) =>
    [at.getSeconds(), at.getMinutes(), at.getHours(), at.getDate(), at.getMonth() + 1, at.getDay()].every(
      (value, i) => lists[i]!.includes(value),
    );
  const date = new Date(from.getFullYear(), from.getMonth(), from.getDate());
  for (let d = 0; d < 3; d++, date.setDate(date.getDate() + 1))
    for (const h of fields.hour)
      for (const m of fields.minute)
        for (const s of fields.second) {
          const at = new Date(date.getFullYear(), date.getMonth(), date.getDate(), h, m, s);
          if (at > from && matches(at)) return at;
        }
  return null;
}

/** Zones whose clocks jump in 2026, with the local days they do (month from 0). */
const ZONES: Record<string, [number, number][]> = {
  'Europe/Bucharest': [
    [2, 29],
    [9, 25],
  ],
  'America/New_York': [
    [2, 8],
    [10, 1],
  ],
  // Half an hour.
  'Australia/Lord_Howe': [
    [3, 5],
    [9, 4],
  ],
  // Two hours, at 01:00 UTC.
  'Antarctica/Troll': [
    [2, 29],
    [9, 25],
  ],
  // At midnight: some days have no 00:00.
  'America/Santiago': [
    [3, 5],
    [8, 6],
  ],
};

describe('nextRun', () => {
  it('finds the same next run as a walk of every slot of the day, across the days the clocks jump', () => {
    const expressions = ['* * * * *', '*/5 * * * *', '*/15 * * * *', '30 2 * * *', '0 3 * * *', '45 * * * *'];
    let compared = 0;
    for (const [name, days] of Object.entries(ZONES)) {
      process.env.TZ = name;
      for (const [month, date] of days) {
        for (const hour of [0, 1, 2, 3, 4, 5, 12, 23]) {
          for (const [minute, second] of [
            [0, 0],
            [29, 59],
            [59, 30],
          ] as const) {
            const from = new Date(2026, month, date, hour, minute, second);
            for (const expression of expressions) {
              const label = `${expression} after ${from.toISOString()} in ${name}`;
              expect(nextRun(expression, from)?.toISOString(), label).toBe(
                everySlotNextRun(expression, from)?.toISOString(),
              );
              compared += 1;
            }
          }
        }
      }
    }
    expect(compared).toBe(5 * 2 * 8 * 3 * 6);
  });

  it('works out each expression once and gives every pipeline its own', () => {
    process.env.TZ = 'Europe/Bucharest';
    const from = new Date(2026, 10, 26, 23, 58, 30);
    const next = nextRunsOf({ ...DEFAULT_SCHEDULES, catalog: 'off', feedback: '*/15 * * * *' }, from);
    expect(next).toEqual({
      catalog: null,
      products: new Date(2026, 10, 27, 0, 0).toISOString(),
      orders: new Date(2026, 10, 26, 23, 59).toISOString(),
      stock: new Date(2026, 10, 26, 23, 59).toISOString(),
      prices: new Date(2026, 10, 27, 0, 0).toISOString(),
      feedback: new Date(2026, 10, 27, 0, 0).toISOString(),
      'erp-orders': new Date(2026, 10, 27, 0, 0).toISOString(),
    });
  });
});
