import { describe, expect, it } from 'vitest';
import { isoSeconds, parseIsoDate } from '../../../src/sandbox/http/time.js';

describe('parseIsoDate', () => {
  it.each([
    ['2026-05-01', '2026-05-01T00:00:00.000Z'],
    ['2026-05-01T10:20', '2026-05-01T10:20:00.000Z'],
    ['2026-05-01T10:20:30', '2026-05-01T10:20:30.000Z'],
    ['2026-05-01T10:20:30.123Z', '2026-05-01T10:20:30.123Z'],
    ['2026-05-01T10:20:30+02:00', '2026-05-01T08:20:30.000Z'],
    ['2026-05-01T10:20:30-0130', '2026-05-01T11:50:30.000Z'],
    ['2026-05-01T10:20:30 02:00', '2026-05-01T08:20:30.000Z'],
  ])('reads %s', (input, expected) => {
    expect(new Date(parseIsoDate(input) as number).toISOString()).toBe(expected);
  });

  it.each(['yesterday', '2026-13-01', '2026-02-30', '2026-05-01T25:00', '', '1714557600'])(
    'refuses %s',
    (input) => {
      expect(parseIsoDate(input)).toBeNull();
    },
  );

  it('formats timestamps at second resolution in UTC', () => {
    expect(isoSeconds(Date.parse('2026-05-01T10:20:30.999Z'))).toBe('2026-05-01T10:20:30Z');
  });
});
