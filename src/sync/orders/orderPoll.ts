/**
 * Finding the platform orders the store does not know, with as few list requests as possible and
 * without trusting the list's order. Pages are read from the newest end inwards (page 1 first
 * when the list is newest-first, the last page first when it is oldest-first); paging stops at
 * the first page whose orders are all known. This is exact because orders are imported oldest
 * first and every decided order is remembered: known orders form a contiguous block at the old
 * end, apart from at most a few in flight when a run was killed (fewer than a page).
 * A quiet poll costs one request (newest-first) or two (oldest-first: page 1, then the last).
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

export async function scanForUnseenOrders<T extends ListedOrder>(
  fetchPage: (page: number) => Promise<ListedPage<T>>,
  isKnown: (ids: number[]) => Set<number>,
): Promise<ScanResult<T>> {
  const unseen = new Map<number, T>();
  const known = new Map<number, T>();
  let pagesRead = 0;

  /** Records a page's orders; true when every one of them was already known. */
  const take = (items: T[]): boolean => {
    const knownIds = isKnown(items.map((o) => o.id));
    let allKnown = true;
    for (const order of items) {
      if (knownIds.has(order.id)) {
        if (!unseen.has(order.id)) known.set(order.id, order);
      } else {
        allKnown = false;
        unseen.set(order.id, order);
      }
    }
    return allKnown;
  };

  const first = await fetchPage(1);
  pagesRead += 1;
  const lastPage = Math.max(1, first.lastPage);
  let direction: ListDirection = lastPage === 1 ? 'single-page' : (directionOf(first.items) ?? 'single-page');

  if (lastPage === 1 || first.items.length === 0) {
    take(first.items);
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
    let allKnown = take(first.items);
    while (!allKnown && page < end) {
      page += 1;
      const next = await fetchPage(page);
      pagesRead += 1;
      end = Math.max(end, next.lastPage);
      if (next.items.length === 0) break;
      allKnown = take(next.items);
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
    const allKnown = take(current.items);
    if (allKnown && current.items.length > 0) break;
    page -= 1;
    if (page < 1) break;
    if (page === 1) {
      take(first.items);
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
