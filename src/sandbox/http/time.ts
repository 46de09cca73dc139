/** Timestamps are ISO 8601 UTC with second resolution, e.g. 2026-05-01T10:20:30Z. */
export function isoSeconds(ms: number = Date.now()): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().slice(0, 19) + 'Z';
}

const DAY = 86_400_000;

const DATE_FORMS: [RegExp, (m: string[]) => number | null][] = [
  // calendar date, extended or basic: 2026-05-01, 20260501
  [
    /^(\d{4})-(\d{2})-(\d{2})$|^(\d{4})(\d{2})(\d{2})$/,
    (m) => calendar(m[1] ?? m[4], m[2] ?? m[5], m[3] ?? m[6]),
  ],
  // reduced precision: 2026-05 (the 1st), 2026 (January 1st)
  [/^(\d{4})(?:-(\d{2}))?$/, (m) => calendar(m[1], m[2] ?? '01', '01')],
  // week date: 2026-W18-5, 2026W185, 2026-W18 (its Monday)
  [/^(\d{4})-?W(\d{2})(?:-?([1-7]))?$/i, (m) => week(Number(m[1]), Number(m[2]), Number(m[3] ?? 1))],
  // ordinal date: 2026-121, 2026121
  [/^(\d{4})-?(\d{3})$/, (m) => ordinal(Number(m[1]), Number(m[2]))],
];

function calendar(y = '', mo = '', d = ''): number | null {
  const ms = Date.UTC(Number(y), Number(mo) - 1, Number(d));
  const date = new Date(ms);
  return date.getUTCMonth() === Number(mo) - 1 && date.getUTCDate() === Number(d) ? ms : null;
}

function ordinal(year: number, day: number): number | null {
  const ms = Date.UTC(year, 0, day);
  return day >= 1 && new Date(ms).getUTCFullYear() === year ? ms : null;
}

function week(year: number, w: number, weekday: number): number | null {
  // Week 1 is the week (Monday to Sunday) that holds January 4th; week 53 exists when its Thursday is still in `year`.
  const jan4 = Date.UTC(year, 0, 4);
  const monday1 = jan4 - ((new Date(jan4).getUTCDay() + 6) % 7) * DAY;
  const thursday = monday1 + ((w - 1) * 7 + 3) * DAY;
  if (w < 1 || w > 53 || new Date(thursday).getUTCFullYear() !== year) return null;
  return monday1 + ((w - 1) * 7 + weekday - 1) * DAY;
}

/** hh[:mm[:ss]] or hhmm[ss], an optional fraction of the last unit (. or ,), an optional offset. */
const TIME_RE = /^(\d{2})(?::?(\d{2})(?::?(\d{2}))?)?(?:[.,](\d{1,9}))?(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/**
 * Parses any ISO 8601 date or date-time (calendar, week or ordinal date; extended or basic format;
 * reduced precision; a decimal fraction; with or without offset) to epoch ms. A date alone is
 * midnight UTC; a date-time without offset is UTC. A '+' decoded to a space by a sloppy query
 * string ("…00 02:00") is read back as '+'. Returns null when the value is not a valid date.
 */
export function parseIsoDate(raw: string): number | null {
  const value = raw
    .trim()
    .replace(/^(\S+[T ]\d{2}(?::?\d{2}(?::?\d{2})?)?(?:[.,]\d+)?) (\d{2}(?::?\d{2})?)$/i, '$1+$2');
  const [datePart = '', timePart, ...rest] = value.split(/[T ]/i);
  if (rest.length > 0) return null;
  let day: number | null = null;
  for (const [re, read] of DATE_FORMS) {
    const m = re.exec(datePart);
    if (m) {
      day = read([...m]);
      break;
    }
  }
  if (day === null) return null;
  if (timePart === undefined) return day;
  const t = TIME_RE.exec(timePart);
  if (!t) return null;
  const [, h = '', mi, s, frac, offset] = t;
  const hour = Number(h);
  const minute = Number(mi ?? 0);
  const second = Number(s ?? 0);
  if (hour > 23 || minute > 59 || second > 59) return null;
  // A fraction belongs to the smallest unit given: 10.5 is 10:30, 10:20.5 is 10:20:30.
  const unitMs = s !== undefined ? 1000 : mi !== undefined ? 60_000 : 3_600_000;
  const fractionMs = frac ? Math.floor(Number(`0.${frac}`) * unitMs) : 0;
  let offsetMinutes = 0;
  if (offset && offset.toUpperCase() !== 'Z') {
    const sign = offset.startsWith('-') ? -1 : 1;
    const digits = offset.slice(1).replace(':', '');
    const oh = Number(digits.slice(0, 2));
    const om = digits.length > 2 ? Number(digits.slice(2, 4)) : 0;
    if (oh > 23 || om > 59) return null;
    offsetMinutes = sign * (oh * 60 + om);
  }
  return day + hour * 3_600_000 + minute * 60_000 + second * 1000 + fractionMs - offsetMinutes * 60_000;
}
