import type { InvalidRecord, Page } from './envelope.js';

export const ITERATE_PER_PAGE = 100;

/**
 * Walks pages 1..last_page (re-reading last_page from every page, so a list that grows while we
 * walk is followed to its new end). Records already yielded are skipped by key: when records are
 * added to the front of a list, the ones pushed onto the next page come back and are dropped.
 * Two pages in a row that bring nothing new end the walk: a server that ignores `page` (answering
 * page 1 again, often without meta) would otherwise be walked for ever.
 * Records a page set aside as invalid (lists read with `skipInvalid`) go to `onInvalid`.
 */
export async function* iteratePages<T>(
  fetchPage: (page: number) => Promise<Page<T>>,
  keyOf: (record: T) => string | number,
  onInvalid?: (invalid: InvalidRecord, page: number) => void,
): AsyncGenerator<T, void, undefined> {
  const seen = new Set<string | number>();
  let pagesWithNothingNew = 0;
  for (let page = 1; ; page++) {
    const { data, meta, invalid } = await fetchPage(page);
    for (const record of invalid ?? []) onInvalid?.(record, page);
    let fresh = 0;
    for (const record of data) {
      const key = keyOf(record);
      if (seen.has(key)) continue;
      seen.add(key);
      fresh++;
      yield record;
    }
    pagesWithNothingNew = fresh === 0 ? pagesWithNothingNew + 1 : 0;
    if (data.length === 0 || page >= meta.last_page || pagesWithNothingNew >= 2) return;
  }
}
