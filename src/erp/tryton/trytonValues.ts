/**
 * Tryton's typed JSON values (`{"__class__": "Decimal", ...}`), converted at the edge of the
 * client: nothing past it sees a `__class__` object.
 * - Decimal <-> TrytonDecimal (its exact text; `toNumber()` when a number is wanted)
 * - date <-> CalendarDate (a day without a time zone)
 * - datetime <-> Date (Tryton keeps naive UTC timestamps)
 * - bytes -> Buffer; timedelta -> seconds (number)
 */

export class TrytonDecimal {
  constructor(readonly text: string) {
    if (!/^-?\d+(\.\d+)?(E[+-]?\d+)?$/i.test(text)) throw new TypeError(`not a decimal: "${text}"`);
  }

  static of(value: number, places = 2): TrytonDecimal {
    if (!Number.isFinite(value)) throw new TypeError(`not a finite number: ${value}`);
    return new TrytonDecimal(value.toFixed(places));
  }

  toNumber(): number {
    return Number(this.text);
  }

  toString(): string {
    return this.text;
  }
}

export class CalendarDate {
  constructor(
    readonly year: number,
    readonly month: number,
    readonly day: number,
  ) {}

  static fromDate(date: Date): CalendarDate {
    return new CalendarDate(date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate());
  }

  toString(): string {
    const pad = (n: number, width = 2) => String(n).padStart(width, '0');
    return `${pad(this.year, 4)}-${pad(this.month)}-${pad(this.day)}`;
  }
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Our values -> Tryton's JSON (used on every request's params). */
export function encodeValue(value: unknown): unknown {
  if (value instanceof TrytonDecimal) return { __class__: 'Decimal', decimal: value.text };
  if (value instanceof CalendarDate) {
    return { __class__: 'date', year: value.year, month: value.month, day: value.day };
  }
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw new TypeError('invalid Date');
    return {
      __class__: 'datetime',
      year: value.getUTCFullYear(),
      month: value.getUTCMonth() + 1,
      day: value.getUTCDate(),
      hour: value.getUTCHours(),
      minute: value.getUTCMinutes(),
      second: value.getUTCSeconds(),
      microsecond: value.getUTCMilliseconds() * 1000,
    };
  }
  if (Array.isArray(value)) return value.map(encodeValue);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, encodeValue(item)]));
  }
  return value;
}

/** Tryton's JSON -> our values (used on every result). */
export function decodeValue(value: Json | undefined): unknown {
  if (Array.isArray(value)) return value.map(decodeValue);
  if (value === null || typeof value !== 'object') return value;
  const kind = value.__class__;
  if (typeof kind === 'string') {
    const n = (key: string) => Number(value[key] ?? 0);
    switch (kind) {
      case 'Decimal':
        return new TrytonDecimal(String(value.decimal));
      case 'date':
        return new CalendarDate(n('year'), n('month'), n('day'));
      case 'datetime':
        return new Date(
          Date.UTC(n('year'), n('month') - 1, n('day'), n('hour'), n('minute'), n('second')) +
            Math.floor(n('microsecond') / 1000),
        );
      case 'time':
        return `${String(n('hour')).padStart(2, '0')}:${String(n('minute')).padStart(2, '0')}:${String(n('second')).padStart(2, '0')}`;
      case 'timedelta':
        return n('seconds');
      case 'bytes':
        return Buffer.from(String(value.base64), 'base64');
    }
  }
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, decodeValue(item)]));
}
