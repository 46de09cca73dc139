import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { orderRepositoriesOf } from '../../../src/store/createOrderRepositories.js';
import { runErpOrders } from '../../../src/sync/orders/erpOrders.js';
import { runFeedback } from '../../../src/sync/orders/feedback.js';
import { runOrders } from '../../../src/sync/orders/orders.js';
import { createOrderReservations } from '../../../src/sync/orders/reservations.js';
import type { StubOrderPlatformOptions } from '../../support/stubOrderPlatform.js';
import { outboxIds, writeInboxOrder } from '../../support/orderChecks.js';
import { startStubPlatformWorld, type StubPlatformWorld } from '../../support/stubPlatformWorld.js';

/*
 * The order pipelines against a second API implementation that makes other plausible choices
 * than the sandbox: lines named `lines`, lists of summaries without lines, POST /orders answered
 * without lines, and one odd record among good ones.
 */

const RUN = { full: false, dryRun: false };
let world: StubPlatformWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const SHAPES: [string, StubOrderPlatformOptions, { getsPerOrder: number }][] = [
  ['a summary list (no lines), lines under `items`', { list: 'summary' }, { getsPerOrder: 1 }],
  [
    'a summary list (no lines), lines under `lines`',
    { list: 'summary', lineKey: 'lines' },
    { getsPerOrder: 1 },
  ],
  ['a full list with lines under `lines`', { list: 'full', lineKey: 'lines' }, { getsPerOrder: 0 }],
];

describe('orders: plausible response shapes', () => {
  for (const [label, options, { getsPerOrder }] of SHAPES) {
    it(`imports every order from ${label}, fetching an order only when the list lacks its lines`, async () => {
      world = await startStubPlatformWorld(options);
      const ids = [1, 2, 3].map(() => world!.platform.add({}, 'SKU-A'));
      const run = await runOrders(await world.context(), RUN);
      expect(run.error).toBeUndefined();
      expect(run.extra.imported).toBe(3);
      expect((await outboxIds(world.erpDir)).ids).toEqual(ids);
      const file = JSON.parse(await readFile(join(world.erpDir, 'outbox', 'orders', '1.json'), 'utf8'));
      expect(JSON.stringify(file)).toContain('SKU-A'); // the lines reached the ERP, whatever their name
      const gets = world.platform.calls().filter((c) => /^GET \/orders\/\d+$/.test(c));
      expect(gets).toHaveLength(3 * getsPerOrder);
      expect(run.requests).toBe(1 + 3 * getsPerOrder);
    });
  }

  it('turns a record that fails its schema into a reject naming the order and the field; the others go through', async () => {
    world = await startStubPlatformWorld({ list: 'full', lineKey: 'lines' });
    world.platform.add({}, 'SKU-A');
    const odd = world.platform.add({}, 'SKU-B');
    world.platform.add({}, 'SKU-C');
    // Broken in the list and in the order itself: a quantity the platform writes as a word.
    const broken = { lines: [{ sku: 'SKU-B', quantity: 'two', unit_price: 11, total: 22 }] };
    world.platform.orders.get(odd)!.listOverride = broken;
    world.platform.orders.get(odd)!.getOverride = broken;

    const ctx = await world.context();
    const run = await runOrders(ctx, RUN);
    expect(run.error).toBeUndefined();
    expect(run.extra.imported).toBe(2);
    expect(run.rejected).toBe(1);
    expect((await outboxIds(world.erpDir)).ids).toEqual([1, 3]);
    const rejects = ctx.store.rejects.list({ pipeline: 'orders' });
    expect(rejects.map((r) => r.key)).toEqual([String(odd)]);
    expect(rejects[0]!.reason).toContain("'data.lines.0.quantity'");
    expect(orderRepositoriesOf(ctx.store).parked.get(odd)?.code).toBe('api_schema');

    // Repaired on the platform: the parked order is retried and imported, its reject resolved.
    world.platform.orders.get(odd)!.listOverride = undefined;
    world.platform.orders.get(odd)!.getOverride = undefined;
    orderRepositoriesOf(ctx.store).parked.park(
      { platformOrderId: odd, number: null, code: 'api_schema', reason: 'due now' },
      new Date(Date.now() - 86_400_000),
      1,
    );
    const again = await runOrders(await world.context(), RUN);
    expect(again.extra.imported).toBe(1);
    expect((await outboxIds(world.erpDir)).ids).toEqual([1, 2, 3]);
    expect(ctx.store.rejects.list({ pipeline: 'orders' })).toEqual([]);
  });

  it('imports an order whose list record is odd but whose own record is fine, fetching only that one', async () => {
    world = await startStubPlatformWorld({ list: 'full' });
    world.platform.add({}, 'SKU-A');
    const odd = world.platform.add({}, 'SKU-B');
    world.platform.orders.get(odd)!.listOverride = { total: 'n/a' };
    const run = await runOrders(await world.context(), RUN);
    expect(run.extra.imported).toBe(2);
    expect(run.rejected).toBe(0);
    expect(world.platform.calls().filter((c) => c.startsWith('GET /orders/'))).toEqual([
      `GET /orders/${odd}`,
    ]);
  });

  it('reports a list record without a usable id and imports the others', async () => {
    world = await startStubPlatformWorld({ list: 'full' });
    world.platform.add({}, 'SKU-A');
    const odd = world.platform.add({}, 'SKU-B');
    world.platform.orders.get(odd)!.listOverride = { id: 'two' };
    const run = await runOrders(await world.context(), RUN);
    expect(run.error).toBeUndefined();
    expect(run.extra.imported).toBe(1);
    expect(run.extra.unreadable).toBe(1);
    expect(run.rejected).toBe(1);
  });

  it('holds the units of an order the list shows without lines, in the oversell guard', async () => {
    world = await startStubPlatformWorld({ list: 'summary', lineKey: 'lines' });
    world.platform.add({}, 'SKU-A');
    const ctx = await world.context();
    const guard = createOrderReservations({
      client: ctx.client,
      store: ctx.store,
      config: ctx.config,
      logger: ctx.logger,
      erp: ctx.erp,
    });
    expect(await guard.unitsHeld(['SKU-A', 'SKU-Z'])).toEqual(new Map([['SKU-A', 2]]));
  });
});

describe('feedback: AWB and invoice answers in other shapes', () => {
  async function twoOrdersShipping(options: StubOrderPlatformOptions) {
    world = await startStubPlatformWorld(options);
    const first = world.platform.add({}, 'SKU-A');
    const second = world.platform.add({}, 'SKU-B');
    expect((await runOrders(await world.context(), RUN)).error).toBeUndefined();
    await writeFile(
      join(world.erpDir, 'events.csv'),
      ['order_id,event,courier', `${first},awb,fan`, `${second},invoiced,`].join('\n'),
    );
    return { first, second };
  }

  const result = async (id: number, kind: string) =>
    JSON.parse(await readFile(join(world!.erpDir, 'outbox', 'results', `${id}-${kind}.json`), 'utf8'));

  it('reads an AWB answered as awb_number, and the invoice of the order behind it arrives', async () => {
    const { first, second } = await twoOrdersShipping({
      awbAnswer: (id) => ({ data: { awb_number: `FAN-${id}`, courier: 'fan' } }),
      invoiceAnswer: (id) => ({ invoice_number: `F-${id}`, total: '22.00' }),
    });
    const run = await runFeedback(await world!.context(), RUN);
    expect(run.error).toBeUndefined();
    expect(run.applied).toBe(2);
    expect(run.rejected).toBe(0);
    expect((await result(first, 'awb')).awb).toMatchObject({ number: `FAN-${first}`, courier: 'fan' });
    expect((await result(second, 'invoiced')).invoice).toMatchObject({ number: `F-${second}`, total: 22 });
  });

  it('rejects the one event whose answer names no AWB number, and applies the invoice behind it', async () => {
    const { first, second } = await twoOrdersShipping({ awbAnswer: () => ({ data: { code: 'X1' } }) });
    const ctx = await world!.context();
    const run = await runFeedback(ctx, RUN);
    expect(run.error).toBeUndefined();
    expect(run.applied).toBe(1);
    expect(run.rejected).toBe(1);
    const rejects = ctx.store.rejects.list({ pipeline: 'feedback' });
    expect(rejects.map((r) => r.key)).toEqual([`${first}:awb`]);
    expect(rejects[0]!.reason).toContain(
      "cannot be read: POST /orders/{id}/awb: unexpected response shape at 'data.number'",
    );
    expect((await result(second, 'invoiced')).invoice).toMatchObject({ series: 'INV', number: second });
    // Decided: the next run neither repeats the AWB nor fails on it.
    const again = await runFeedback(await world!.context(), RUN);
    expect(again.error).toBeUndefined();
    expect(world!.platform.calls().filter((c) => c.endsWith('/awb'))).toHaveLength(1);
  });
});

describe('feedback and erp-orders: plausible response shapes', () => {
  it('creates an ERP order whose POST answer carries no lines, links it, and applies its events through PATCH answers without lines', async () => {
    world = await startStubPlatformWorld({ list: 'summary', lineKey: 'lines', writeAnswer: 'summary' });
    await writeInboxOrder(world.erpDir, 'PH-1.json', {
      source_order_id: 'PH-1',
      customer_id: 3,
      items: [{ sku: 'SKU-A', quantity: 1 }],
    });
    const created = await runErpOrders(await world.context(), RUN);
    expect(created.error).toBeUndefined();
    expect(created.applied).toBe(1);
    const ctx = await world.context();
    const platformId = ctx.store.orders.outgoing.get('PH-1')!.platformOrderId!;
    expect(orderRepositoriesOf(ctx.store).links.get(platformId)?.erpRef).toBe('PH-1');
    const result = JSON.parse(
      await readFile(join(world.erpDir, 'outbox', 'results', 'created-PH-1.json'), 'utf8'),
    );
    expect(result.platform_order_id).toBe(platformId);
    expect(world.platform.calls().filter((c) => c === 'POST /orders')).toHaveLength(1);

    // The orders poll knows it as ours; feedback moves it with PATCH answers without lines.
    const poll = await runOrders(await world.context(), RUN);
    expect(poll.error).toBeUndefined();
    expect(poll.extra.imported ?? 0).toBe(0);
    await writeFile(join(world.erpDir, 'events.csv'), 'erp_ref,event,note\nPH-1,confirmed,checked\n');
    const feedback = await runFeedback(await world.context(), RUN);
    expect(feedback.error).toBeUndefined();
    expect(feedback.applied).toBe(1);
    expect(world.platform.orders.get(platformId)!.record.status).toBe('confirmed');
    expect(await readdir(join(world.erpDir, 'outbox', 'results'))).toContain(`${platformId}-confirmed.json`);
  });

  it('finds an ERP order whose POST answer cannot be read by source_order_id (created once), and creates the next one', async () => {
    world = await startStubPlatformWorld({ list: 'summary', lineKey: 'lines' });
    for (const id of ['PH-5', 'PH-6'])
      await writeInboxOrder(world.erpDir, `${id}.json`, {
        source_order_id: id,
        customer_id: 3,
        items: [{ sku: 'SKU-A', quantity: 1 }],
      });
    const { platform } = world;
    // The platform creates PH-5 and answers in a shape of its own (no status, a state word).
    platform.intercept(
      (r) =>
        r.method === 'POST' &&
        r.path === '/orders' &&
        (r.body as { source_order_id?: string }).source_order_id === 'PH-5',
      () => ({ status: 201, json: { data: { id: Math.max(...platform.orders.keys()), state: 'accepted' } } }),
      { applyFirst: true },
    );
    const run = await runErpOrders(await world.context(), RUN);
    expect(run.error).toBeUndefined();
    expect(run.applied).toBe(2);
    expect(run.extra.foundExisting).toBe(1);
    expect(platform.calls().filter((c) => c === 'POST /orders')).toHaveLength(2);
    expect(platform.orders.size).toBe(2);
    const ctx = await world.context();
    expect(ctx.store.orders.outgoing.get('PH-5')).toMatchObject({ state: 'created', platformOrderId: 1 });
    expect(ctx.store.orders.outgoing.get('PH-6')).toMatchObject({ state: 'created', platformOrderId: 2 });
  });

  it('finds an ERP order whose POST answer was lost by source_order_id, in a summary list where its record is odd: created once', async () => {
    world = await startStubPlatformWorld({ list: 'summary', lineKey: 'lines', writeAnswer: 'summary' });
    await writeInboxOrder(world.erpDir, 'PH-2.json', {
      source_order_id: 'PH-2',
      customer_id: 3,
      items: [{ sku: 'SKU-A', quantity: 1 }],
    });
    const { platform } = world;
    // The platform creates the order, the answer is lost, and the list shows its record oddly.
    platform.intercept(
      (r) => r.method === 'POST' && r.path === '/orders',
      () => {
        const newest = Math.max(...platform.orders.keys());
        platform.orders.get(newest)!.listOverride = { payment_status: 'owed' };
        return 'drop';
      },
      { applyFirst: true },
    );
    const run = await runErpOrders(await world.context(), RUN);
    expect(run.error).toBeUndefined();
    expect(run.applied).toBe(1);
    expect(run.extra.foundExisting).toBe(1);
    expect(platform.orders.size).toBe(1);
    expect(platform.calls().filter((c) => c === 'POST /orders')).toHaveLength(1);
    const ctx = await world.context();
    expect(ctx.store.orders.outgoing.get('PH-2')?.platformOrderId).toBe(1);
  });
});
