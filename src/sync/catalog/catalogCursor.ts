/**
 * The catalog's cursor. `updated_after` is strictly-after with second resolution and the
 * platform's commit order need not follow its timestamps, so every scan re-reads an overlap
 * window before the cursor and de-duplicates by (id, updated_at). A product whose updated_at
 * equals the cursor second is therefore always read again, never skipped.
 */

/** The `updated_after` value for a scan: the cursor less the overlap; undefined means a full listing. */
export function scanFrom(cursor: string | null | undefined, overlapSeconds: number): string | undefined {
  if (!cursor) return undefined;
  const at = Date.parse(cursor);
  if (Number.isNaN(at)) return undefined;
  // At least one second back: updated_after is strictly-after, and the cursor's own second must be re-read.
  return toIsoSecond(at - Math.max(1, overlapSeconds) * 1000);
}

export function toIsoSecond(epochMs: number): string {
  return new Date(Math.floor(epochMs / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** Tracks the newest updated_at seen during a scan. */
export class CursorTracker {
  private newest: number | null = null;

  see(updatedAt: string): void {
    const at = Date.parse(updatedAt);
    if (!Number.isNaN(at) && (this.newest === null || at > this.newest)) this.newest = at;
  }

  /**
   * The cursor to store once the scan completed: the newest updated_at seen, but never later than
   * the local time the scan started (a product changed while we paged may carry an earlier
   * timestamp than one already read), and never earlier than the previous cursor.
   */
  next(previous: string | null | undefined, scanStartedAtMs: number): string | null {
    const prev = previous ? Date.parse(previous) : Number.NaN;
    if (this.newest === null) return previous ?? null;
    let candidate = Math.min(this.newest, scanStartedAtMs);
    if (!Number.isNaN(prev)) candidate = Math.max(candidate, prev);
    return toIsoSecond(candidate);
  }
}

/**
 * (id, updated_at) already processed: the link stored for that product carries the same pair,
 * and its second was closed when it was read, i.e. strictly before the previous cursor. A product
 * stamped in the cursor's own second may have changed again within that second (same updated_at),
 * so it is always handled again.
 */
export function alreadySeen(
  link: { productId: number; platformUpdatedAt: string | null } | undefined,
  product: { id: number; updated_at: string },
  previousCursor: string | null | undefined,
): boolean {
  if (link === undefined || link.productId !== product.id || link.platformUpdatedAt !== product.updated_at) {
    return false;
  }
  const cursor = previousCursor ? Date.parse(previousCursor) : Number.NaN;
  return (
    !Number.isNaN(cursor) && Math.floor(Date.parse(product.updated_at) / 1000) < Math.floor(cursor / 1000)
  );
}
