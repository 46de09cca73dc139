import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../../src/config.js';
import { dayIn, parseReadMark, readMarkReceipt, sinceBinding } from '../../../../src/erp/sql/sqlReadMark.js';

const api = { baseUrl: 'http://127.0.0.1:9', apiKey: 'k'.repeat(32) };
const at = (iso: string): number => Date.parse(iso);

describe(':since as text the driver sends as it is', () => {
  it("is the database session's wall clock, with the offset for PostgreSQL and ISO 8601 for SQL Server", () => {
    const since = at('2026-11-21T10:15:30.250Z');
    expect(sinceBinding('pg', since, 60, 60)).toBe('2026-11-21 11:15:30.250+01:00');
    expect(sinceBinding('pg', since, -300, -300)).toBe('2026-11-21 05:15:30.250-05:00');
    expect(sinceBinding('pg', since, 345, 345)).toBe('2026-11-21 16:00:30.250+05:45');
    expect(sinceBinding('mysql', since, 540, 540)).toBe('2026-11-21 19:15:30');
    expect(sinceBinding('mssql', since, 120, 120)).toBe('2026-11-21T12:15:30.250');
    expect(sinceBinding('sqlite', since, 0, 0)).toBe('2026-11-21 10:15:30');
  });

  it('takes the smaller offset when the clocks changed in between, so no row written after is skipped', () => {
    // Europe/Prague, 25 October 2026: 03:00 CEST (+02:00) becomes 02:00 CET (+01:00) at 01:00 UTC.
    const since = at('2026-10-25T00:50:00Z'); // 02:50 CEST
    // A row written at 01:10 UTC holds 02:10 (CET) in a column without a zone: earlier than 02:50.
    expect(sinceBinding('mysql', since, 120, 60)).toBe('2026-10-25 01:50:00');
    expect(sinceBinding('mysql', since, 120, 60) < '2026-10-25 02:10:00').toBe(true);
    // PostgreSQL: the wall clock for `timestamp`, the instant (an hour earlier: a re-read) for `timestamptz`.
    expect(sinceBinding('pg', since, 120, 60)).toBe('2026-10-25 01:50:00.000+02:00');
    // Clocks going forward (29 March): the offset at since is the smaller, its wall clock is exact.
    expect(sinceBinding('mysql', at('2026-03-29T00:50:00Z'), 60, 120)).toBe('2026-03-29 01:50:00');
  });
});

describe('the business day and the read mark', () => {
  it('gives the day of an instant in an IANA zone', () => {
    expect(dayIn('Europe/Bucharest', '2026-11-21T21:59:59Z')).toBe('2026-11-21');
    expect(dayIn('Europe/Bucharest', '2026-11-21T22:00:00Z')).toBe('2026-11-22');
    expect(dayIn('Etc/GMT+12', '2026-11-21T11:00:00Z')).toBe('2026-11-20');
  });

  it('keeps the offset and the day in the receipt, and reads receipts written before them', () => {
    const mark = { mark: '2026-11-21T10:00:00.000Z', fullAt: '2026-11-21T09:00:00.000Z' };
    expect(parseReadMark(readMarkReceipt({ ...mark, offsetMinutes: 120, day: '2026-11-21' }))).toEqual({
      ...mark,
      offsetMinutes: 120,
      day: '2026-11-21',
    });
    expect(parseReadMark(readMarkReceipt(mark))).toEqual(mark);
  });

  it('refuses a time zone it does not know, naming the key', () => {
    const erp = { type: 'sql', client: 'pg', connection: { database: 'erp' } };
    expect(parseConfig({ api, erp: { ...erp, timeZone: 'Europe/Bucharest' } }).erp).toMatchObject({
      timeZone: 'Europe/Bucharest',
    });
    expect(() => parseConfig({ api, erp: { ...erp, timeZone: 'Mars/Olympus' } })).toThrow(
      /erp\.timeZone: unknown time zone/,
    );
  });
});
