import { describe, expect, it } from 'vitest';
import type { StoredReject } from '../../../../src/store/index.js';
import type { ParkedOrder } from '../../../../src/store/ParkedOrderRepository.js';
import type { ConsoleStatus } from '../../../../src/server/console/ConsoleSources.js';
import { overviewFragment } from '../../../../src/server/console/overviewView.js';
import { parkedFragment } from '../../../../src/server/console/parkedView.js';
import { rejectsFragment } from '../../../../src/server/console/rejectsView.js';
import { itemLink, placeOf, type ViewContext } from '../../../../src/server/console/viewParts.js';

const writable: ViewContext = { csrf: 'TOKEN', readOnly: false, here: '/orders' };
const readOnly: ViewContext = { ...writable, readOnly: true };

const reject = (over: Partial<StoredReject>): StoredReject => ({
  pipeline: 'stock',
  key: 'SKU-1',
  reason: 'quantity is not a number: "abc"',
  source: { file: 'stock.csv', line: 12 },
  firstSeen: '2026-11-25T10:00:00.000Z',
  lastSeen: '2026-11-25T10:05:00.000Z',
  count: 3,
  resolvedAt: null,
  ...over,
});

const parked: ParkedOrder = {
  platformOrderId: 41,
  number: 'DR-41',
  code: 'erp_rejected',
  reason: 'unknown SKU in the ERP: NOPE-1',
  attempts: 2,
  firstParkedAt: '2026-11-25T10:00:00.000Z',
  lastAttemptAt: '2026-11-25T10:01:00.000Z',
  nextAttemptAt: '2999-01-01T00:00:00.000Z',
};

describe('console views', () => {
  it('says where a reject is: file and line, query and line, the ERP record, with the row when known', () => {
    expect(placeOf({ file: 'stock.csv', line: 12 })).toBe('stock.csv:12');
    expect(placeOf({ file: 'stock query', line: 3, row: 'BAD,lots' })).toBe('stock query:3: BAD,lots');
    expect(placeOf({ row: 'product.product 7' })).toBe('product.product 7');
    expect(placeOf(null)).toBe('');
  });

  it("links a reject to its item's page: the SKU of a variant, an order id; not a row without a key", () => {
    expect(itemLink('stock', 'SKU-1/RED', null)).toBe('/explain/sku?sku=SKU-1');
    expect(itemLink('prices', 'A&B', null)).toBe('/explain/sku?sku=A%26B');
    expect(itemLink('orders', '41', null)).toBe('/explain/order?id=41');
    expect(itemLink('stock', 'stock.csv:9', { file: 'stock.csv', line: 9 })).toBeNull();
    expect(itemLink('erp-orders', 'SO-9', null)).toBeNull();
  });

  it('lists rejects with place, reason and link, and pages through them', () => {
    const out = rejectsFragment(
      { page: 2, pipeline: 'stock' },
      [
        reject({}),
        reject({ key: 'stock.csv:13', reason: 'missing sku', source: { file: 'stock.csv', line: 13 } }),
      ],
      102,
    ).text;
    expect(out).toContain('<a href="/explain/sku?sku=SKU-1">SKU-1</a>');
    expect(out).toContain('stock.csv:12');
    expect(out).toContain('quantity is not a number: &quot;abc&quot;');
    expect(out).toContain('51–52 of 102 open');
    expect(out).toContain('href="/rejects?pipeline=stock"');
    expect(out).toContain('href="/rejects?pipeline=stock&amp;page=3"');
    expect(out).not.toContain('href="/explain/sku?sku=stock.csv');
  });

  it('draws the retry buttons with the token, and none at all when read-only', () => {
    const out = parkedFragment(writable, [parked]).text;
    expect(out).toContain('unknown SKU in the ERP: NOPE-1');
    expect(out.match(/<form /g)).toHaveLength(2); // retry all, retry #41
    expect(out).toContain('name="_csrf" value="TOKEN"');
    expect(out).toContain('name="order" value="41"');
    const shown = parkedFragment(readOnly, [parked]).text;
    expect(shown).toContain('unknown SKU in the ERP: NOPE-1');
    expect(shown).not.toContain('<form');
    expect(shown).not.toContain('TOKEN');
  });

  it('shows a Redis that cannot be reached as a message, with the rest of the overview', () => {
    const status: ConsoleStatus = {
      account: null,
      pipelines: [
        {
          pipeline: 'stock',
          status: 'failed',
          startedAt: null,
          finishedAt: null,
          error: 'boom',
          counts: null,
        },
      ],
      rejects: { open: 0, byPipeline: {} },
      parkedOrders: [],
      daemon: {
        redis: 'redis://127.0.0.1:9',
        reachable: false,
        error: 'Redis is not reachable (redis://127.0.0.1:9)',
        daemons: 0,
        paused: null,
        queues: {},
        pipelines: {} as ConsoleStatus['daemon']['pipelines'],
      },
    };
    const out = overviewFragment(writable, {
      health: { healthy: true, eventLoopLagMs: 3, uptimeSeconds: 60 },
      readiness: { ok: true, value: { ready: false, reasons: ['Redis is unreachable (reconnecting)'] } },
      status: { ok: true, value: status },
      erp: { ok: false, error: new Error('connect ECONNREFUSED 127.0.0.1:5432') },
      runs: { ok: true, value: [] },
      platform: 'http://127.0.0.1:1/api/v2',
    }).text;
    expect(out).toContain('Redis not reachable');
    expect(out).toContain('Redis is unreachable (reconnecting)');
    expect(out).toContain('the ERP could not be checked');
    expect(out).toContain('connect ECONNREFUSED 127.0.0.1:5432');
    expect(out).toContain('<strong>stock</strong>');
    expect(out).not.toMatch(/at .*\.ts:\d+/); // no stack

    // A store whose company moved to a new address says so on its account card.
    const moved = overviewFragment(writable, {
      health: { healthy: true, eventLoopLagMs: 3, uptimeSeconds: 60 },
      readiness: { ok: true, value: { ready: true, reasons: [] } },
      status: {
        ok: true,
        value: {
          ...status,
          account: {
            baseUrl: 'https://shop.example/api/v2',
            companyId: '1',
            companyName: 'Demo Retail SRL',
            taxId: 'RO12345678',
            boundAt: '2026-11-25T09:00:00.000Z',
            previousBaseUrl: 'http://10.0.0.5:8080/api/v2',
            movedAt: '2026-11-25T10:00:00.000Z',
          },
        },
      },
      erp: { ok: false, error: new Error('not checked') },
      runs: { ok: true, value: [] },
      platform: 'https://shop.example/api/v2',
    }).text;
    expect(moved).toMatch(/address changed from http:\/\/10\.0\.0\.5:8080\/api\/v2 at/);
    expect(moved).toContain('at https://shop.example/api/v2');
  });
});
