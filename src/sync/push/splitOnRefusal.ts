/**
 * Sends a batch; when the platform refuses it as a whole (422 or 413), isolates the offending
 * items and applies the rest. With a per-item error map (`items.N.field`) the offenders are
 * known at once; without one, the batch is split in halves until each refused item stands alone.
 * A refusal for the request's size (`tooLarge`) teaches `sizing` the platform's limit: the one it
 * named, or half the refused count once both halves went through (a single item too large for any
 * request is refused alone and teaches nothing). Every part is cut to `sizing`'s size before it goes.
 */
import { chunks } from '../../store/chunks.js';

export interface Refusal {
  /** Reasons per index in the batch that was sent, when the platform named the items. */
  byIndex?: Map<number, string>;
  /** The platform's message for the whole request. */
  message: string;
  /** Refused for its number of items or its size, not for one of them. */
  tooLarge?: boolean;
  /** The most items a request may carry, when the platform said. */
  maxItems?: number;
}

export interface SplitResult<T> {
  /** Items the platform accepted, with the response that covered them. */
  accepted: { items: T[]; response: unknown }[];
  rejected: { item: T; reason: string }[];
  requests: number;
}

export interface SplitOptions<T> {
  send: (items: T[]) => Promise<unknown>;
  /** A Refusal when the error means "this request's content was refused"; null rethrows the error. */
  classify: (error: unknown, items: T[]) => Refusal | null;
  /** Learns the platform's bulk limit from size refusals and sizes the parts (see bulkSize.ts). */
  sizing?: { size(): number; refused(sent: number, named?: number): void };
}

export async function sendSplitting<T>(items: T[], options: SplitOptions<T>): Promise<SplitResult<T>> {
  const result: SplitResult<T> = { accepted: [], rejected: [], requests: 0 };
  await attempt(items, options, result);
  return result;
}

async function attempt<T>(items: T[], options: SplitOptions<T>, result: SplitResult<T>): Promise<void> {
  if (items.length === 0) return;
  const max = options.sizing?.size() ?? Infinity;
  if (items.length > max) {
    for (const part of chunks(items, max)) await attempt(part, options, result);
    return;
  }
  let refusal: Refusal | null;
  try {
    result.requests += 1;
    const response = await options.send(items);
    result.accepted.push({ items, response });
    return;
  } catch (error) {
    refusal = options.classify(error, items);
    if (!refusal) throw error;
  }
  if (items.length === 1) {
    result.rejected.push({ item: items[0]!, reason: refusal.byIndex?.get(0) ?? refusal.message });
    return;
  }
  const named = [...(refusal.byIndex ?? new Map<number, string>())].filter(
    ([index]) => index >= 0 && index < items.length,
  );
  if (named.length > 0) {
    const bad = new Map(named);
    const rest: T[] = [];
    items.forEach((item, index) => {
      const reason = bad.get(index);
      if (reason === undefined) rest.push(item);
      else result.rejected.push({ item, reason });
    });
    await attempt(rest, options, result);
    return;
  }
  const { sizing } = options;
  if (sizing && refusal.tooLarge && refusal.maxItems !== undefined && refusal.maxItems < items.length) {
    sizing.refused(items.length, refusal.maxItems);
    if (sizing.size() < items.length) {
      await attempt(items, options, result);
      return;
    }
  }
  const rejectedBefore = result.rejected.length;
  const middle = Math.ceil(items.length / 2);
  await attempt(items.slice(0, middle), options, result);
  await attempt(items.slice(middle), options, result);
  if (sizing && refusal.tooLarge && result.rejected.length === rejectedBefore) sizing.refused(items.length);
}

/**
 * Turns a field error map such as `{"items.3.quantity": ["must be at least 0"]}` into reasons
 * per item index ("quantity: must be at least 0"). Keys that name no item are ignored.
 */
export function reasonsByIndex(fieldErrors: Record<string, string[]> | undefined): Map<number, string> {
  const reasons = new Map<number, string>();
  if (!fieldErrors) return reasons;
  for (const [path, messages] of Object.entries(fieldErrors)) {
    const match = /^items\.(\d+)(?:\.(.+))?$/.exec(path);
    if (!match) continue;
    const index = Number(match[1]);
    const text = `${match[2] ? `${match[2]}: ` : ''}${messages.join('; ')}`;
    const previous = reasons.get(index);
    reasons.set(index, previous ? `${previous}; ${text}` : text);
  }
  return reasons;
}
