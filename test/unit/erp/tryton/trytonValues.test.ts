import { describe, expect, it } from 'vitest';
import { errorFromRpc, errorFromStatus } from '../../../../src/erp/tryton/trytonErrors.js';
import {
  CalendarDate,
  decodeValue,
  encodeValue,
  TrytonDecimal,
} from '../../../../src/erp/tryton/trytonValues.js';

describe('Tryton values at the edge', () => {
  it('decodes Decimal, date and datetime (UTC) wherever they are nested', () => {
    const decoded = decodeValue({
      rows: [
        {
          price: { __class__: 'Decimal', decimal: '11.1400' },
          day: { __class__: 'date', year: 2026, month: 11, day: 21 },
          at: {
            __class__: 'datetime',
            year: 2026,
            month: 11,
            day: 21,
            hour: 5,
            minute: 15,
            second: 39,
            microsecond: 250000,
          },
          'product.': { code: 'SKU-1', id: 1 },
        },
      ],
    }) as { rows: Record<string, unknown>[] };
    const row = decoded.rows[0]!;
    expect(row.price).toBeInstanceOf(TrytonDecimal);
    expect((row.price as TrytonDecimal).toNumber()).toBe(11.14);
    expect(String(row.day)).toBe('2026-11-21');
    expect((row.at as Date).toISOString()).toBe('2026-11-21T05:15:39.250Z');
    expect(row['product.']).toEqual({ code: 'SKU-1', id: 1 });
  });

  it('encodes them back, exactly', () => {
    expect(
      encodeValue([
        new TrytonDecimal('8.07'),
        TrytonDecimal.of(1 / 3, 4),
        new CalendarDate(2026, 1, 2),
        new Date('2026-11-21T05:15:39.250Z'),
      ]),
    ).toEqual([
      { __class__: 'Decimal', decimal: '8.07' },
      { __class__: 'Decimal', decimal: '0.3333' },
      { __class__: 'date', year: 2026, month: 1, day: 2 },
      {
        __class__: 'datetime',
        year: 2026,
        month: 11,
        day: 21,
        hour: 5,
        minute: 15,
        second: 39,
        microsecond: 250000,
      },
    ]);
    expect(() => new TrytonDecimal('12,5')).toThrow('not a decimal');
  });
});

describe('Tryton errors by kind', () => {
  it('a UserError is permanent and keeps the message, not the domain dump', () => {
    const error = errorFromRpc('model.sale.sale.create', [
      'UserError',
      ['A value is required for field "Party" in "Sale".', '', { huge: 'x'.repeat(10_000) }],
    ]);
    expect(error).toMatchObject({ code: 'erp_rejected', retryable: false, fatal: false });
    expect(error.message).toBe(
      'Tryton refused model.sale.sale.create: A value is required for field "Party" in "Sale".',
    );
    expect(JSON.stringify(error).length).toBeLessThan(1_000);
  });

  it("an access error is a missing right of erp-sync's user (the order is not parked), naming the server", () => {
    for (const message of [
      'You are not allowed to create records of "Sale" because they fail on at least one of these rules:',
      'You are not allowed to access "Party".',
      'Calling button "quote on "sale.sale" is not allowed.',
    ]) {
      const error = errorFromRpc(
        'model.sale.sale.create',
        ['UserError', [message, '', null]],
        'http://h:8000/erp/',
      );
      expect(error).toMatchObject({ code: 'erp_permission', retryable: false, fatal: false });
      expect(error.message).toBe(
        `Tryton at http://h:8000/erp/ refused model.sale.sale.create: a right of erp-sync's user is missing: ${message}`,
      );
    }
  });

  it('a locked database or concurrent update heals; an unknown field is a programming error', () => {
    expect(errorFromRpc('m', ['database is locked', ''])).toMatchObject({
      code: 'erp_unavailable',
      retryable: true,
    });
    expect(errorFromRpc('m', ["'nofield'", ''])).toMatchObject({ code: 'internal', retryable: false });
  });

  it('HTTP: 401 fatal, 429 and 5xx retryable, 403 internal', () => {
    expect(errorFromStatus('m', 401)).toMatchObject({ code: 'erp_auth', fatal: true });
    expect(errorFromStatus('m', 429)).toMatchObject({ code: 'erp_unavailable', retryable: true });
    expect(errorFromStatus('m', 502)).toMatchObject({ code: 'erp_unavailable', retryable: true });
    expect(errorFromStatus('m', 403)).toMatchObject({ code: 'internal', retryable: false, fatal: false });
  });
});
