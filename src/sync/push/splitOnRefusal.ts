/**
 * Sends a batch; when the platform refuses it as a whole (422 or 413), isolates the offending
 * items and applies the rest. With a per-item error map (`items.N.field`) the offenders are
 * known at once; without one, the batch is split in halves until each refused item stands alone.
 */

export interface Refusal {
  /** Reasons per index in the batch that was sent, when the platform named the items. */
  byIndex?: Map<number, string>;
  /** The platform's message for the whole request. */
  message: string;
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
}

export async function sendSplitting<T>(items: T[], options: SplitOptions<T>): Promise<SplitResult<T>> {
  const result: SplitResult<T> = { accepted: [], rejected: [], requests: 0 };
  await attempt(items, options, result);
  return result;
}

async function attempt<T>(items: T[], options: SplitOptions<T>, result: SplitResult<T>): Promise<void> {
  if (items.length === 0) return;
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
  const middle = Math.ceil(items.length / 2);
  await attempt(items.slice(0, middle), options, result);
  await attempt(items.slice(middle), options, result);
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
