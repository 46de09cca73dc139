import { describe, expect, it } from 'vitest';
import type { Page } from '../../../src/api/envelope.js';
import { iteratePages } from '../../../src/api/pagination.js';

function pageOf(ids: number[], page: number, perPage: number): Page<{ id: number }> {
  return {
    data: ids.slice((page - 1) * perPage, page * perPage).map((id) => ({ id })),
    meta: {
      current_page: page,
      per_page: perPage,
      total: ids.length,
      last_page: Math.max(1, Math.ceil(ids.length / perPage)),
    },
  };
}

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

describe('iteratePages', () => {
  it('walks every page up to last_page and stops there', async () => {
    const ids = Array.from({ length: 7 }, (_, i) => i + 1);
    const asked: number[] = [];
    const records = await collect(
      iteratePages(
        async (page) => {
          asked.push(page);
          return pageOf(ids, page, 3);
        },
        (r) => r.id,
      ),
    );
    expect(records.map((r) => r.id)).toEqual(ids);
    expect(asked).toEqual([1, 2, 3]);
  });

  it('drops records seen on an earlier page when new ones push the list down', async () => {
    const ids = [6, 5, 4, 3, 2, 1];
    const records = await collect(
      iteratePages(
        async (page) => {
          const result = pageOf(ids, page, 2);
          ids.unshift(ids[0]! + 1); // a new newest record after every page
          return result;
        },
        (r) => r.id,
      ),
    );
    const seen = records.map((r) => r.id);
    expect(new Set(seen).size).toBe(seen.length);
    for (const id of [1, 2, 3, 4, 5, 6]) expect(seen).toContain(id);
  });

  it('follows a last_page that grows while walking', async () => {
    const ids = [1, 2, 3, 4];
    const records = await collect(
      iteratePages(
        async (page) => {
          const result = pageOf(ids, page, 2);
          if (page === 1) ids.push(5, 6);
          return result;
        },
        (r) => r.id,
      ),
    );
    expect(records.map((r) => r.id)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('stops on an empty page even when meta claims more', async () => {
    let calls = 0;
    const records = await collect(
      iteratePages(
        async () => {
          calls++;
          return { data: [], meta: { current_page: 1, per_page: 100, total: 500, last_page: 5 } };
        },
        (r: { id: number }) => r.id,
      ),
    );
    expect(records).toEqual([]);
    expect(calls).toBe(1);
  });

  it('ends the walk when a server ignores page and repeats page 1', async () => {
    const ids = Array.from({ length: 150 }, (_, i) => i + 1);
    let calls = 0;
    const records = await collect(
      iteratePages(
        async () => {
          calls++;
          // No meta from the server: what parseList derives for a full bare-array page.
          const data = ids.map((id) => ({ id }));
          return { data, meta: { current_page: calls, per_page: 100, total: 0, last_page: calls + 1 } };
        },
        (r) => r.id,
      ),
    );
    expect(records.map((r) => r.id)).toEqual(ids);
    expect(calls).toBe(3);
  });

  it('keeps walking past one page of repeats when the list grew by a page at the front', async () => {
    const ids = Array.from({ length: 6 }, (_, i) => 6 - i); // newest first, 2 per page
    let next = 7;
    const records = await collect(
      iteratePages(
        async (page) => {
          const result = pageOf(ids, page, 2);
          if (page === 1) for (let i = 0; i < 2; i++) ids.unshift(next++); // page 2 now repeats page 1
          return result;
        },
        (r) => r.id,
      ),
    );
    expect(records.map((r) => r.id).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6]);
  });
});
