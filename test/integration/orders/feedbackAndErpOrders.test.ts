import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildStatusReport, formatStatusReport } from '../../../src/cli/statusCommand.js';
import { orderRepositoriesOf } from '../../../src/store/createOrderRepositories.js';
import { FEEDBACK_CHECKPOINT, runFeedback } from '../../../src/sync/orders/feedback.js';
import { runErpOrders } from '../../../src/sync/orders/erpOrders.js';
import { runOrders } from '../../../src/sync/orders/orders.js';
import { startOrderWorld, type OrderWorld } from '../../support/orderWorld.js';
import { createPlatformOrder, outboxIds, sellableSku, writeInboxOrder } from '../../support/orderChecks.js';

const RUN = { full: false, dryRun: false };
let world: OrderWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe('feedback from ERP events', () => {
  it('moves the platform status, creates the AWB and the invoice, writes them back, and a replay changes nothing', async () => {
    world = await startOrderWorld();
    const sku = await sellableSku(world.api);
    const order = await createPlatformOrder(world.api, sku, 2);
    await runOrders(await world.context(), RUN);
    const erpDir = join(world.dir, 'erp');
    await writeFile(
      join(erpDir, 'events.csv'),
      [
        'order_id,erp_ref,event,courier,weight,parcels,note,labels',
        `${order.id},,confirmed,,,,checked by ERP,erp|b2c`,
        `,${order.id}.json,processing,,,,,`,
        `${order.id},,awb,sameday,1.5,2,,`,
        `${order.id},,invoiced,,,,,`,
        `${order.id},,shipped,,,,left the warehouse,`,
        `${order.id},,confirmed,,,,too late,late`,
        `${order.id},,cancelled,,,,too late to cancel,`,
        '999999999,,invoiced,,,,,',
      ].join('\n'),
    );
    const run = await runFeedback(await world.context(), RUN);
    // "confirmed" after "shipped" is a move the order has already made: applied, not a reject
    // (its label still goes through); "cancelled" after "shipped" is a real refusal.
    expect(run.applied).toBe(6);
    expect(run.extra.alreadyPassed).toBe(1);
    expect(run.rejected).toBe(2);

    const platform = await world.api.orders.get(order.id);
    expect(platform.status).toBe('shipped');
    expect(platform.labels).toEqual(['late']);
    expect(platform.awb?.number).toBeTruthy();
    expect(platform.invoice?.number).toBeTruthy();
    const results = join(erpDir, 'outbox', 'results');
    const awb = JSON.parse(await readFile(join(results, `${order.id}-awb.json`), 'utf8'));
    const invoice = JSON.parse(await readFile(join(results, `${order.id}-invoiced.json`), 'utf8'));
    expect(String(awb.awb.number)).toBe(String(platform.awb?.number));
    expect(String(invoice.invoice.number)).toBe(String(platform.invoice?.number));

    // The refused move is a reject carrying the platform's message, and is not retried.
    const ctx = await world.context();
    const rejects = ctx.store.rejects.list({ pipeline: 'feedback' });
    expect(rejects.map((r) => r.key).sort()).toEqual([`${order.id}:cancelled`, '999999999:invoiced']);
    expect(rejects.every((r) => r.reason.length > 10)).toBe(true);
    world.sandbox.requestLog.clear();
    expect((await runFeedback(ctx, RUN)).read).toBe(0); // refusals are not retried
    expect(world.sandbox.requestLog.entries()).toEqual([]);

    // Replay: the same events from the start of the file.
    ctx.store.cursors.delete(FEEDBACK_CHECKPOINT);
    world.sandbox.requestLog.clear();
    const replay = await runFeedback(ctx, RUN);
    expect(replay.unchanged).toBe(8);
    expect(world.sandbox.requestLog.entries()).toEqual([]);
    const again = await world.api.orders.get(order.id);
    expect(again.history).toEqual(platform.history);
    expect(again.awb).toEqual(platform.awb);

    // A run killed after its API calls but before recording them redoes the calls: same effect.
    ctx.store.db.exec('DELETE FROM applied_events');
    ctx.store.cursors.delete(FEEDBACK_CHECKPOINT);
    const redo = await runFeedback(ctx, RUN);
    // The statuses already reached are not spurious rejects; only the real refusals come back.
    expect(redo.rejected).toBe(2);
    expect(redo.extra.alreadyPassed).toBe(3); // confirmed, processing, confirmed (too late)
    const redone = await world.api.orders.get(order.id);
    expect(redone.status).toBe('shipped');
    expect(redone.history).toEqual(platform.history);
    expect(redone.awb).toEqual(platform.awb);
    expect(redone.invoice).toEqual(platform.invoice);

    // The statuses the ERP caused are not echoed back to it as platform-side changes.
    await runOrders(await world.context(), { full: true, dryRun: false });
    await expect(readdir(join(erpDir, 'outbox', 'updates'))).rejects.toThrow();
    expect(orderRepositoriesOf(ctx.store).links.get(order.id)?.acknowledgedAt).not.toBeNull();
  });
});

describe('feedback from a file with bad rows', () => {
  it('turns every bad row into a reject naming the file line and the reason, and applies the others', async () => {
    world = await startOrderWorld();
    const sku = await sellableSku(world.api);
    const order = await createPlatformOrder(world.api, sku, 1);
    await runOrders(await world.context(), RUN);
    const huge = Array.from({ length: 120_000 }, (_, i) => `l${i}`).join('|'); // > 1 MiB of labels
    await writeFile(
      join(world.dir, 'erp', 'events.csv'),
      [
        'order_id,erp_ref,event,note,labels',
        `${order.id},,confirmed,,`,
        `${order.id},,teleported,,`,
        'x12,,shipped,,',
        ',NO-SUCH-REF,shipped,,',
        `${order.id},,processing,${'n'.repeat(501)},`,
        `${order.id},,processing,,${huge}`,
        `${order.id},,invoiced,,`,
      ].join('\n'),
    );
    const run = await runFeedback(await world.context(), RUN);
    expect(run.error).toBeUndefined();
    expect(run.applied).toBe(2);
    expect(run.rejected).toBe(5);
    const platform = await world.api.orders.get(order.id);
    expect(platform.status).toBe('confirmed');
    expect(platform.invoice).not.toBeNull();

    const rejects = (await world.context()).store.rejects.list({ pipeline: 'feedback' });
    const byLine = new Map(rejects.map((r) => [r.source?.line, r]));
    expect([...byLine.keys()].sort()).toEqual([3, 4, 5, 6, 7]);
    expect(rejects.every((r) => r.source?.file === 'events.csv')).toBe(true);
    expect(byLine.get(3)!.reason).toMatch(/unknown event "teleported"/);
    expect(byLine.get(4)!.reason).toMatch(/order_id "x12" is not an integer/);
    expect(byLine.get(5)!.reason).toMatch(/unknown erp_ref "NO-SUCH-REF"/);
    expect(byLine.get(6)!.reason).toMatch(/note has 501 characters/);
    expect(byLine.get(7)!.reason.length).toBeGreaterThan(5); // the platform's refusal of the body
    // Nothing is retried: the checkpoint is past every row.
    world.sandbox.requestLog.clear();
    expect((await runFeedback(await world.context(), RUN)).read).toBe(0);
    expect(world.sandbox.requestLog.entries()).toEqual([]);
  });
});

describe('files the ERP repairs', () => {
  it('applies the rows after a broken CSV line once it is repaired, and creates a half-written inbox order once complete; their rejects are resolved', async () => {
    world = await startOrderWorld();
    const sku = await sellableSku(world.api);
    const order = await createPlatformOrder(world.api, sku, 1);
    await runOrders(await world.context(), RUN);
    const erpDir = join(world.dir, 'erp');
    const events = (line3: string) =>
      writeFile(
        join(erpDir, 'events.csv'),
        `order_id,event,note\n${order.id},confirmed,ok\n${line3}\n${order.id},invoiced,\n`,
      );
    await events(`${order.id},processing,"packed"by hand`);
    const broken = await runFeedback(await world.context(), RUN);
    expect(broken.error).toBeUndefined();
    expect([broken.applied, broken.rejected]).toEqual([1, 1]);
    const ctx = await world.context();
    expect(ctx.store.rejects.list({ pipeline: 'feedback' }).map((r) => r.key)).toEqual(['events.csv:3']);
    expect((await world.api.orders.get(order.id)).invoice).toBeNull(); // not skipped: waits for the repair
    await events(`${order.id},processing,"packed by hand"`);
    const repaired = await runFeedback(await world.context(), RUN);
    expect(repaired.applied).toBe(2);
    const after = await world.api.orders.get(order.id);
    expect(after.status).toBe('processing');
    expect(after.invoice).not.toBeNull();
    expect(ctx.store.rejects.list({ pipeline: 'feedback' })).toEqual([]);

    const inbox = join(erpDir, 'inbox', 'orders');
    await mkdir(join(inbox, 'folder.json'), { recursive: true }); // not a file: ignored
    const full = JSON.stringify({
      source_order_id: 'HALF-1',
      customer: { name: 'H', email: 'h@example.ro' },
      items: [{ sku, quantity: 1 }],
    });
    await writeFile(join(inbox, 'half.json'), full.slice(0, 30));
    const half = await runErpOrders(await world.context(), RUN);
    expect(half.error).toBeUndefined();
    expect([half.applied, half.rejected]).toEqual([0, 1]);
    expect(ctx.store.rejects.list({ pipeline: 'erp-orders' }).map((r) => r.key)).toEqual(['half.json']);
    await writeFile(join(inbox, 'half.json'), full);
    expect((await runErpOrders(await world.context(), RUN)).applied).toBe(1);
    expect(ctx.store.rejects.list({ pipeline: 'erp-orders' })).toEqual([]);
  });
});

describe('feedback under transient errors', () => {
  it('stops at an event the platform cannot take now and applies it on a later run', async () => {
    world = await startOrderWorld({ config: { api: { retries: 1, timeoutMs: 2_000, deadlineMs: 5_000 } } });
    const sku = await sellableSku(world.api);
    const order = await createPlatformOrder(world.api, sku);
    await runOrders(await world.context(), RUN);
    await writeFile(
      join(world.dir, 'erp', 'events.csv'),
      `order_id,event\n${order.id},confirmed\n${order.id},invoiced\n`,
    );
    world.sandbox.setFaults('error_rate=1,only=PATCH /orders');
    const failing = await runFeedback(await world.context(), RUN);
    expect(`${failing.error?.code}: ${failing.error?.message}`).toMatch(/api_server|5\d\d/);
    expect(failing.applied).toBe(0);
    expect((await world.api.orders.get(order.id)).invoice).toBeNull(); // nothing after it either
    world.sandbox.setFaults(null);
    const healed = await runFeedback(await world.context(), RUN);
    expect(healed.applied).toBe(2);
    const after = await world.api.orders.get(order.id);
    expect(after.status).toBe('confirmed');
    expect(after.invoice).not.toBeNull();
  });
});

describe('ERP-origin orders', () => {
  it('creates an order whose POST response is lost exactly once, found again by source_order_id', async () => {
    world = await startOrderWorld();
    const sku = await sellableSku(world.api);
    const inbox = join(world.dir, 'erp', 'inbox', 'orders');
    await mkdir(inbox, { recursive: true });
    const sourceOrderId = `ERP-${Date.now()}`;
    await writeFile(
      join(inbox, `${sourceOrderId}.json`),
      JSON.stringify({
        source_order_id: sourceOrderId,
        customer: { name: 'Phone Order SRL', email: 'phone.order@example.ro' },
        items: [{ sku, quantity: 3 }],
      }),
    );
    // The platform creates the order, then the connection is dropped before the answer.
    world.sandbox.setFaults('drop_rate=1,only=POST /orders');
    const run = await runErpOrders(await world.context(), RUN);
    world.sandbox.setFaults(null);
    expect(run.applied).toBe(1);
    expect(run.extra.foundExisting).toBe(1);

    const posts = world.sandbox.requestLog
      .entries()
      .filter((e) => e.method === 'POST' && e.path.endsWith('/orders'));
    expect(posts).toHaveLength(1);
    const found = await world.api.orders.list({ search: sourceOrderId });
    const matching = found.data.filter((o) => o.source_order_id === sourceOrderId);
    expect(matching).toHaveLength(1);
    expect(matching[0]!.items?.[0]).toMatchObject({ sku, quantity: 3 });

    const created = JSON.parse(
      await readFile(join(world.dir, 'erp', 'outbox', 'results', `created-${sourceOrderId}.json`), 'utf8'),
    );
    expect(created.platform_order_id).toBe(matching[0]!.id);
    expect(await readdir(join(inbox, 'done'))).toEqual([`${sourceOrderId}.json`]);

    // A rerun creates nothing, and the orders poll does not import it back into the ERP.
    await writeFile(
      join(inbox, `${sourceOrderId}-again.json`),
      JSON.stringify({
        source_order_id: sourceOrderId,
        customer_id: matching[0]!.customer_id,
        items: [{ sku, quantity: 3 }],
      }),
    );
    world.sandbox.requestLog.clear();
    const rerun = await runErpOrders(await world.context(), RUN);
    expect(rerun.unchanged).toBe(1);
    expect(world.sandbox.requestLog.entries().filter((e) => e.method === 'POST')).toEqual([]);
    await runOrders(await world.context(), RUN);
    expect((await outboxIds(join(world.dir, 'erp'))).ids).not.toContain(matching[0]!.id);

    // Linked under its source_order_id (acknowledged, nothing held): a cancellation by the merchant
    // on the platform reaches the ERP as an update, once.
    const link = (await world.context()).store.orders.links.get(matching[0]!.id);
    expect(link).toMatchObject({ erpRef: sourceOrderId, status: 'new' });
    expect(link?.acknowledgedAt).not.toBeNull();
    await world.api.orders.update(matching[0]!.id, { status: 'cancelled' });
    expect((await runOrders(await world.context(), RUN)).extra.updates).toBe(1);
    expect((await runOrders(await world.context(), RUN)).extra.updates ?? 0).toBe(0);
    const updates = join(world.dir, 'erp', 'outbox', 'updates');
    expect(await readdir(updates)).toEqual([`${matching[0]!.id}-1.json`]);
    const update = JSON.parse(await readFile(join(updates, `${matching[0]!.id}-1.json`), 'utf8'));
    expect(update).toMatchObject({ erp_ref: sourceOrderId, status: 'cancelled', previous_status: 'new' });
  });

  it('keeps an event naming an ERP order not created yet and applies it once erp-orders created it', async () => {
    world = await startOrderWorld();
    const sku = await sellableSku(world.api);
    const erpDir = join(world.dir, 'erp');
    await writeInboxOrder(erpDir, 'PH-2.json', {
      source_order_id: 'PH-2',
      customer: { name: 'Z', email: 'z@example.ro' },
      items: [{ sku, quantity: 1 }],
    });
    await writeFile(join(erpDir, 'events.csv'), 'erp_ref,event\nPH-2,confirmed\n');
    // run-once's order: feedback before erp-orders.
    const early = await runFeedback(await world.context(), RUN);
    expect(early.rejected).toBe(1);
    const ctx = await world.context();
    expect(ctx.store.rejects.list({ pipeline: 'feedback' }).map((r) => r.key)).toEqual(['PH-2:confirmed']);
    expect((await runFeedback(await world.context(), RUN)).extra.waiting).toBe(1); // still kept, no request
    expect(formatStatusReport(buildStatusReport(ctx.store))).toMatch(/ERP events: .*waiting 1/);

    await runErpOrders(await world.context(), RUN);
    const later = await runFeedback(await world.context(), RUN);
    expect(later.applied).toBe(1);
    const created = ctx.store.orders.outgoing.get('PH-2')!.platformOrderId!;
    expect((await world.api.orders.get(created)).status).toBe('confirmed');
    expect(ctx.store.rejects.list({ pipeline: 'feedback' })).toEqual([]);
    world.sandbox.requestLog.clear();
    const again = await runFeedback(await world.context(), RUN);
    expect(again.applied + again.rejected + (again.extra.waiting ?? 0)).toBe(0);
    expect(world.sandbox.requestLog.entries()).toEqual([]);
  });

  it('creates an order whose POST failed with 5xx (not processed) on a later run, still once', async () => {
    world = await startOrderWorld();
    const sku = await sellableSku(world.api);
    const inbox = join(world.dir, 'erp', 'inbox', 'orders');
    await mkdir(inbox, { recursive: true });
    await writeFile(
      join(inbox, 'x.json'),
      JSON.stringify({
        source_order_id: 'ERP-5XX',
        customer: { name: 'Y', email: 'y@example.ro' },
        items: [{ sku, quantity: 1 }],
      }),
    );
    world.sandbox.setFaults('error_rate=1,only=POST /orders');
    const failing = await runErpOrders(await world.context(), RUN);
    expect(failing.applied).toBe(0);
    expect((await world.context()).store.orders.outgoing.get('ERP-5XX')?.state).toBe('unknown');
    world.sandbox.setFaults(null);
    const healed = await runErpOrders(await world.context(), RUN);
    expect(healed.applied).toBe(1);
    const found = (await world.api.orders.list({ search: 'ERP-5XX' })).data.filter(
      (o) => o.source_order_id === 'ERP-5XX',
    );
    expect(found).toHaveLength(1);
  });

  it('matches the customer by email and refuses an unknown SKU as a reject with the platform message', async () => {
    world = await startOrderWorld();
    const customers = await world.api.customers.list({ per_page: 1 });
    const customer = customers.data[0]!;
    const sku = await sellableSku(world.api);
    const inbox = join(world.dir, 'erp', 'inbox', 'orders');
    await mkdir(inbox, { recursive: true });
    await writeFile(
      join(inbox, 'a.json'),
      JSON.stringify({
        source_order_id: 'B2B-1',
        customer: { name: 'x', email: customer.email },
        items: [{ sku, quantity: 1 }],
      }),
    );
    await writeFile(
      join(inbox, 'b.json'),
      JSON.stringify({
        source_order_id: 'B2B-2',
        customer_id: customer.id,
        items: [{ sku: 'NO-SUCH-SKU-9', quantity: 1 }],
      }),
    );
    // A customer the platform does not have is created from the order's customer object.
    const email = `new.b2b.${Date.now()}@example.ro`;
    await writeFile(
      join(inbox, 'c.json'),
      JSON.stringify({
        source_order_id: 'B2B-3',
        customer: { name: 'New B2B SRL', email },
        items: [{ sku, quantity: 2 }],
      }),
    );
    // Bad files are rejects naming the file; the others go on.
    await writeFile(join(inbox, '0-broken.json'), '{"source_order_id": "B2B-X", ');
    await writeFile(
      join(inbox, 'd.json'),
      JSON.stringify({ source_order_id: 'B2B-4', customer_id: customer.id, items: [] }),
    );
    const lines = Array.from({ length: 40_000 }, () => ({ sku, quantity: 1 })); // > 1 MiB body
    await writeFile(
      join(inbox, 'e.json'),
      JSON.stringify({ source_order_id: 'B2B-5', customer_id: customer.id, items: lines }),
    );
    const run = await runErpOrders(await world.context(), RUN);
    expect(run.error).toBeUndefined();
    expect(run.applied).toBe(2);
    expect(run.rejected).toBe(4);
    const created = (await world.api.orders.list({ search: 'B2B-1' })).data.find(
      (o) => o.source_order_id === 'B2B-1',
    );
    expect(created?.customer_id).toBe(customer.id);
    const third = (await world.api.orders.list({ search: 'B2B-3' })).data.find(
      (o) => o.source_order_id === 'B2B-3',
    )!;
    expect(third.customer_id).not.toBe(customer.id);
    const newCustomer = (await world.api.customers.list({ search: email })).data;
    expect(newCustomer.map((c) => c.id)).toEqual([third.customer_id]);
    expect(third.items).toEqual([expect.objectContaining({ sku, quantity: 2 })]);

    const rejects = (await world.context()).store.rejects.list({ pipeline: 'erp-orders' });
    const byKey = new Map(rejects.map((r) => [r.key, r]));
    expect([...byKey.keys()].sort()).toEqual(['0-broken.json', 'B2B-2', 'B2B-4', 'B2B-5']);
    expect(byKey.get('0-broken.json')!.reason).toMatch(/not valid JSON/);
    expect(byKey.get('0-broken.json')!.source?.file).toBe('0-broken.json');
    expect(byKey.get('B2B-4')!.reason).toMatch(/items must hold at least one line/);
    expect(byKey.get('B2B-4')!.source?.file).toBe('d.json');
    expect(byKey.get('B2B-5')!.source?.file).toBe('e.json');
  });
});
