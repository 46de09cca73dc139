import { ApiValidationError, PayloadTooLargeError } from '../../api/errors.js';

const TOO_MANY = /\b(at most|maximum|max|up to|too many|too large|exceed\w*|limit\w*)\b/i;

/**
 * Whether the platform refused a bulk request for its size rather than for an item: a 413, or a
 * 422 about `items` as a whole ("must contain at most 100 items"). `maxItems`: the number it named.
 */
export function sizeRefusal(error: unknown): { maxItems?: number } | null {
  if (error instanceof PayloadTooLargeError) return {};
  if (!(error instanceof ApiValidationError)) return null;
  const onItems = error.fieldErrors?.items;
  const text = onItems?.length
    ? onItems.join('; ')
    : Object.keys(error.fieldErrors ?? {}).length === 0 && /\bitems\b/i.test(error.message)
      ? error.message
      : null;
  if (text === null || !TOO_MANY.test(text)) return null;
  const named = /\b(\d+)\b/.exec(text);
  const maxItems = named ? Number(named[1]) : NaN;
  return Number.isSafeInteger(maxItems) && maxItems >= 1 ? { maxItems } : {};
}
