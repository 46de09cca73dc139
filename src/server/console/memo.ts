/**
 * One answer for every caller within `ttlMs` (and one call in flight at most): several browser
 * tabs refreshing the console every few seconds cost one status read, not one each. A failure is
 * not kept: the next caller after it tries again.
 */
export function memo<T>(fn: () => Promise<T>, ttlMs: number, now: () => number = Date.now): () => Promise<T> {
  let last: { at: number; value: T } | null = null;
  let pending: Promise<T> | null = null;
  return () => {
    if (last && now() - last.at < ttlMs) return Promise.resolve(last.value);
    pending ??= fn().then(
      (value) => {
        last = { at: now(), value };
        pending = null;
        return value;
      },
      (error: unknown) => {
        pending = null;
        throw error;
      },
    );
    return pending;
  };
}
