/**
 * Finding the platform orders the store does not know, with as few list requests as possible and
 * without trusting the list's order. Pages are read from the newest end inwards (page 1 first
 * when the list is newest-first, the last page first when it is oldest-first); paging stops at
 * the first page whose orders are all known. This is exact because orders are imported oldest
 * first and every decided order is remembered: known orders form a contiguous block at the old
 * end, apart from at most a few in flight when a run was killed (fewer than a page).
 * A quiet poll costs one request (newest-first) or two (oldest-first: page 1, then the last).
 *
 * A caller may record each page's unseen orders as soon as the page is read (`onUnseen`), so that
 * their imports start while older pages are still being listed. A scan killed part-way then leaves
 * a block of known orders above a gap it did not reach: the caller keeps the lowest id that scan
 * recorded (`unfinishedBelow`) until a scan finishes, and a page of known orders ends a scan only
 * once it holds an order older than that id (below the gap, in the block known before).
 */

export interface ListedOrder {
  id: number;
  createdAt: string;
}

export interface ListedPage<T extends ListedOrder> {
  items: T[];
  lastPage: number;
}

export type ListDirection = 'newest-first' | 'oldest-first' | 'single-page';

export interface ScanResult<T extends ListedOrder> {
  /** Orders the store does not know, oldest first, each once. */
  unseen: T[];
  /** Known orders met on the pages read (their current state is free change detection). */
  known: T[];
  pagesRead: number;
  direction: ListDirection;
}

/**
 * Orders compared by id: ids come from one increasing sequence, so they order creation exactly,
 * where created_at has second resolution and follows a clock that may be moved. created_at only
 * breaks a tie that cannot happen with distinct ids.
 */
export function compareOldestFirst(a: ListedOrder, b: ListedOrder): number {
  if (a.id !== b.id) return a.id - b.id;
  return Date.parse(a.createdAt) - Date.parse(b.createdAt) || 0;
}

/** Decides the list's order from what a page shows; null when it cannot tell (fewer than 2 distinct). */
export function directionOf(items: readonly ListedOrder[]): 'newest-first' | 'oldest-first' | null {
  if (items.length < 2) return null;
  const cmp = compareOldestFirst(items[0]!, items[items.length - 1]!);
  if (cmp === 0) return null;
  return cmp < 0 ? 'oldest-first' : 'newest-first';
}

export interface ScanOptions<T extends ListedOrder> {
  /** The lowest order id a scan that did not finish recorded (null: none). */
  unfinishedBelow?: number | null;
  /**
   * A page's unseen orders (not met on an earlier page of this scan), newest pages first, as each
   * is read; `pagesLeft`: how many pages the scan may still read (fewer when it meets known ones).
   */
  onUnseen?: (orders: T[], pagesLeft: number) => Promise<void>;
}

export async function scanForUnseenOrders<T extends ListedOrder>(
  fetchPage: (page: number) => Promise<ListedPage<T>>,
  isKnown: (ids: number[]) => Set<number>,
  options: ScanOptions<T> = {},
): Promise<ScanResult<T>> {
  const unseen = new Map<number, T>();
  const known = new Map<number, T>();
  const below = options.unfinishedBelow ?? null;
  let pagesRead = 0;

  /** Records a page's orders; true when every one of them was already known and the scan may end there. */
  const take = async (items: T[], pagesLeft: number): Promise<boolean> => {
    const knownIds = isKnown(items.map((o) => o.id));
    let allKnown = true;
    const fresh: T[] = [];
    for (const order of items) {
      if (knownIds.has(order.id)) {
        if (!unseen.has(order.id)) known.set(order.id, order);
      } else {
        allKnown = false;
        if (!unseen.has(order.id)) fresh.push(order);
        unseen.set(order.id, order);
      }
    }
    if (fresh.length > 0) await options.onUnseen?.(fresh, pagesLeft);
    return allKnown && (below === null || items.some((order) => order.id < below));
  };

  const first = await fetchPage(1);
  pagesRead += 1;
  const lastPage = Math.max(1, first.lastPage);
  let direction: ListDirection = lastPage === 1 ? 'single-page' : (directionOf(first.items) ?? 'single-page');

  if (lastPage === 1 || first.items.length === 0) {
    await take(first.items, 0);
    return finish();
  }

  let last: ListedPage<T> | null = null;
  if (direction === 'single-page') {
    // Page 1 cannot tell (one order per page): compare it with the last page.
    last = await fetchPage(lastPage);
    pagesRead += 1;
    const a = first.items[0];
    const b = last.items[0];
    direction = a && b && compareOldestFirst(a, b) > 0 ? 'newest-first' : 'oldest-first';
  }

  if (direction === 'newest-first') {
    // Orders arriving meanwhile push older ones onto later pages: follow the list's current end.
    let end = lastPage;
    let page = 1;
    let allKnown = await take(first.items, end - 1);
    while (!allKnown && page < end) {
      page += 1;
      const next = await fetchPage(page);
      pagesRead += 1;
      end = Math.max(end, next.lastPage);
      if (next.items.length === 0) break;
      allKnown = await take(next.items, end - page);
    }
    return finish();
  }

  // Oldest-first: the newest orders are on the last page; walk back towards page 1.
  let page = lastPage;
  if (!last) {
    last = await fetchPage(lastPage);
    pagesRead += 1;
  }
  let current: ListedPage<T> = last;
  for (;;) {
    const allKnown = await take(current.items, page - 1);
    if (allKnown && current.items.length > 0) break;
    page -= 1;
    if (page < 1) break;
    if (page === 1) {
      await take(first.items, 0);
      break;
    }
    current = await fetchPage(page);
    pagesRead += 1;
  }
  return finish();

  function finish(): ScanResult<T> {
    return {
      unseen: [...unseen.values()].sort(compareOldestFirst),
      known: [...known.values()],
      pagesRead,
      direction,
    };
  }
}
