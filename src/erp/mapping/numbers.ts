const PLAIN = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const COMMA_DECIMAL = /^[+-]?\d+(,\d*)?$/;
const DOTTED_THOUSANDS = /^[+-]?\d{1,3}(\.\d{3})+(,\d*)?$/;

/**
 * Reads a number as ERP exports write it. With `decimalComma`, "12,50" is 12.5 and "1.234,50"
 * is 1234.5 (dots group thousands). Without it, only plain "12.50" forms are numbers. Spaces
 * (including non-breaking ones) grouping thousands are ignored. Anything else is NaN.
 */
export function parseNumber(value: unknown, decimalComma: boolean): number {
  if (typeof value === 'number') return value;
  if (typeof value !== 'string') return Number.NaN;
  const text = value.replace(/[\s\u00a0\u202f]/g, '');
  if (text === '') return Number.NaN;
  if (decimalComma) {
    if (COMMA_DECIMAL.test(text)) return Number(text.replace(',', '.'));
    if (DOTTED_THOUSANDS.test(text)) return Number(text.replace(/\./g, '').replace(',', '.'));
  }
  return PLAIN.test(text) ? Number(text) : Number.NaN;
}

const TRUE = new Set(['true', '1', 'yes', 'y', 'da']);
const FALSE = new Set(['false', '0', 'no', 'n', 'nu']);

export function parseBoolean(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value === 1 ? true : value === 0 ? false : undefined;
  if (typeof value !== 'string') return undefined;
  const text = value.trim().toLowerCase();
  return TRUE.has(text) ? true : FALSE.has(text) ? false : undefined;
}
