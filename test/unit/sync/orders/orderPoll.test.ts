import { describe, expect, it } from 'vitest';
import { directionOf, scanForUnseenOrders, type ListedOrder } from '../../../../src/sync/orders/orderPoll.js';

/** A platform order list of `total` orders (ids 1..total) served page by page in either order. */
function list(total: number, perPage: number, order: 'desc' | 'asc') {
  const all: ListedOrder[] = Array.from({ length: total }, (_, i) => ({
    id: i + 1,
    createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
  }));
  const requested: number[] = [];
  return {
    requested,
    fetch: async (page: number) => {
      requested.push(page);
      const sorted = order === 'desc' ? [...all].reverse() : all;
      return {
        items: sorted.slice((page - 1) * perPage, page * perPage),
        lastPage: Math.max(1, Math.ceil(total / perPage)),
      };
    },
  };
}

const knownUpTo = (max: number) => (ids: number[]) => new Set(ids.filter((id) => id <= max));

describe('order poll scan', () => {
  for (const order of ['desc', 'asc'] as const) {
    it(`finds every order on a first poll, oldest first (${order})`, async () => {
      const l = list(250, 100, order);
      const result = await scanForUnseenOrders(l.fetch, knownUpTo(0));
      expect(result.unseen.map((o) => o.id)).toEqual(Array.from({ length: 250 }, (_, i) => i + 1));
      expect(l.requested).toHaveLength(3);
    });

    it(`finds only the new orders and stops at a page of known ones (${order})`, async () => {
      const l = list(450, 100, order);
      const result = await scanForUnseenOrders(l.fetch, knownUpTo(300));
      expect(result.unseen.map((o) => o.id)).toEqual(Array.from({ length: 150 }, (_, i) => i + 301));
      expect(l.requested.length).toBeLessThanOrEqual(order === 'desc' ? 3 : 4);
    });
  }

  it('costs one request when nothing is new and the list is newest-first', async () => {
    const l = list(450, 100, 'desc');
    const result = await scanForUnseenOrders(l.fetch, knownUpTo(450));
    expect(result.unseen).toEqual([]);
    expect(l.requested).toEqual([1]);
  });

  it('costs two requests when nothing is new and the list is oldest-first', async () => {
    const l = list(450, 100, 'asc');
    const result = await scanForUnseenOrders(l.fetch, knownUpTo(450));
    expect(result.unseen).toEqual([]);
    expect(l.requested).toEqual([1, 5]);
    expect(result.direction).toBe('oldest-first');
  });

  it('tells the order from one order per page by comparing the first and last page', async () => {
    const l = list(5, 1, 'asc');
    const result = await scanForUnseenOrders(l.fetch, knownUpTo(3));
    expect(result.unseen.map((o) => o.id)).toEqual([4, 5]);
    expect(result.direction).toBe('oldest-first');
  });

  it('decides the direction by ids, not by position or clock', () => {
    expect(
      directionOf([
        { id: 9, createdAt: '2026-01-01T00:00:00Z' },
        { id: 3, createdAt: '2026-01-02T00:00:00Z' },
      ]),
    ).toBe('newest-first');
    expect(
      directionOf([
        { id: 3, createdAt: '2026-01-01T00:00:00Z' },
        { id: 4, createdAt: '2026-01-01T00:00:00Z' },
      ]),
    ).toBe('oldest-first');
    expect(directionOf([{ id: 3, createdAt: 'x' }])).toBeNull();
  });

  it('does not return an order twice when new orders push others onto the next page', async () => {
    let total = 200;
    const pages: number[] = [];
    const fetch = async (page: number) => {
      pages.push(page);
      const all = Array.from({ length: total }, (_, i) => ({
        id: total - i,
        createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, total - i)).toISOString(),
      }));
      if (page === 1) total += 30; // orders arrive while we read
      return { items: all.slice((page - 1) * 100, page * 100), lastPage: Math.ceil(all.length / 100) };
    };
    const result = await scanForUnseenOrders(fetch, knownUpTo(0));
    const ids = result.unseen.map((o) => o.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toContain(1);
  });

  for (const order of ['desc', 'asc'] as const) {
    it(`hands each page's unseen orders over as it is read, newest page first (${order})`, async () => {
      const l = list(250, 100, order);
      const handed: number[][] = [];
      await scanForUnseenOrders(l.fetch, knownUpTo(0), {
        onUnseen: async (orders) => void handed.push(orders.map((o) => o.id)),
      });
      expect(handed.map((ids) => Math.min(...ids))).toEqual(order === 'desc' ? [151, 51, 1] : [201, 101, 1]);
      expect(handed.flat().sort((a, b) => a - b)).toEqual(Array.from({ length: 250 }, (_, i) => i + 1));
    });

    it(`after a scan killed part-way, goes past the pages it recorded down to the orders known before (${order})`, async () => {
      // 1-200 known before; 201-1000 new; the first scan records pages of 1000-701 and is killed.
      const recorded = new Set(Array.from({ length: 200 }, (_, i) => i + 1));
      const isKnown = (ids: number[]) => new Set(ids.filter((id) => recorded.has(id)));
      const record = async (orders: ListedOrder[]) => orders.forEach((o) => recorded.add(o.id));
      const killed = list(1000, 100, order);
      let pages = 0;
      const dying = async (page: number) => {
        if (++pages > (order === 'desc' ? 3 : 4)) throw new Error('killed');
        return killed.fetch(page);
      };
      await expect(scanForUnseenOrders(dying, isKnown, { onUnseen: record })).rejects.toThrow('killed');
      const low = Math.min(...[...recorded].filter((id) => id > 200));
      expect(low).toBe(701);

      // Without the low mark the next scan would stop at the first page of known orders: 201-700 lost.
      const l = list(1000, 100, order);
      const blind = await scanForUnseenOrders(l.fetch, isKnown);
      expect(blind.unseen).toEqual([]);

      const next = await scanForUnseenOrders(l.fetch, isKnown, { unfinishedBelow: low, onUnseen: record });
      expect(next.unseen.map((o) => o.id)).toEqual(Array.from({ length: 500 }, (_, i) => i + 201));
      // ...and stops at the first page of orders known before the killed scan (101-200).
      expect(next.pagesRead).toBe(order === 'desc' ? 9 : 10);
    });
  }
});
