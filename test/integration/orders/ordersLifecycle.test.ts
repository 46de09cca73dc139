import { readdir, readFile, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { orderRepositoriesOf } from '../../../src/store/createOrderRepositories.js';
import { discoverOrders, runOrders } from '../../../src/sync/orders/orders.js';
import { buildStatusReport, formatStatusReport } from '../../../src/cli/statusCommand.js';
import { startOrderWorld, type OrderWorld } from '../../support/orderWorld.js';
import { createPlatformOrder, outboxIds, sellableSku } from '../../support/orderChecks.js';

const RUN = { full: false, dryRun: false };
let world: OrderWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

async function updateFiles(dir: string): Promise<string[]> {
  try {
    return (await readdir(join(dir, 'erp', 'outbox', 'updates'))).filter((n) => !n.startsWith('.')).sort();
  } catch {
    return [];
  }
}

describe('platform-side changes after import', () => {
  it('delivers a cancellation to the ERP once', async () => {
    world = await startOrderWorld();
    const sku = await sellableSku(world.api);
    const order = await createPlatformOrder(world.api, sku);
    await runOrders(await world.context(), RUN);
    expect(await updateFiles(world.dir)).toEqual([]);

    await world.api.orders.update(order.id, { status: 'cancelled', note: 'customer called' });
    const run = await runOrders(await world.context(), RUN);
    expect(run.extra.updates).toBe(1);
    expect(await updateFiles(world.dir)).toEqual([`${order.id}-1.json`]);
    const file = JSON.parse(
      await readFile(join(world.dir, 'erp', 'outbox', 'updates', `${order.id}-1.json`), 'utf8'),
    );
    expect(file).toMatchObject({ order_id: order.id, status: 'cancelled', previous_status: 'new' });

    await runOrders(await world.context(), { full: true, dryRun: false });
    expect(await updateFiles(world.dir)).toEqual([`${order.id}-1.json`]);
  });

  it('finds a change of an older order beyond the pages the poll reads, on the sweep', async () => {
    world = await startOrderWorld();
    await runOrders(await world.context(), RUN);
    const links = orderRepositoriesOf((await world.context()).store).links.list(100_000);
    const oldest = links.reduce((a, b) => (a.platformOrderId < b.platformOrderId ? a : b));
    const sku = await sellableSku(world.api);
    for (let i = 0; i < 110; i++) await createPlatformOrder(world.api, sku); // pushes it off page 1
    await runOrders(await world.context(), RUN);
    const paid = oldest.paymentStatus === 'paid' ? 'refunded' : 'paid';
    await world.api.orders.update(oldest.platformOrderId, { payment_status: paid });

    await runOrders(await world.context(), RUN); // quiet poll: the old order is not on the page read
    expect(await updateFiles(world.dir)).toEqual([]);
    const swept = await runOrders(await world.context(), { full: true, dryRun: false });
    expect(swept.extra.updates).toBe(1);
    expect(await updateFiles(world.dir)).toEqual([`${oldest.platformOrderId}-1.json`]);
  });
});

describe('orders that move on between discovery and import', () => {
  it('imports an order confirmed and put in processing meanwhile, and not one cancelled meanwhile', async () => {
    world = await startOrderWorld();
    await runOrders(await world.context(), RUN);
    const sku = await sellableSku(world.api);
    const moved = await createPlatformOrder(world.api, sku);
    const cancelled = await createPlatformOrder(world.api, sku);
    await discoverOrders(await world.context()); // found as new, then a run is killed before importing
    await world.api.orders.update(moved.id, { status: 'confirmed' });
    await world.api.orders.update(moved.id, { status: 'processing' });
    await world.api.orders.update(cancelled.id, { status: 'cancelled' });

    const run = await runOrders(await world.context(), RUN);
    expect(run.extra.imported).toBe(1);
    const ids = (await outboxIds(join(world.dir, 'erp'))).ids;
    expect(ids).toContain(moved.id);
    expect(ids).not.toContain(cancelled.id);
  });
});

describe('a scan that stops part-way', () => {
  it('records the pages it read; the next scan goes past them down to the orders known before', async () => {
    world = await startOrderWorld({ config: { orders: { perPage: 2 }, api: { retries: 0 } } });
    await runOrders(await world.context(), RUN); // the seed's orders: known
    const sku = await sellableSku(world.api);
    const created: number[] = [];
    for (let i = 0; i < 9; i++) created.push((await createPlatformOrder(world.api, sku)).id);
    // The fourth list page fails: the first three (the 6 newest orders: page 1 recorded alone, then
    // pages 2 and 3 together) are recorded, the rest not.
    let lists = 0;
    const stop = world.sandbox.requestLog.onEntry((entry) => {
      if (entry.method === 'GET' && entry.path === '/api/v2/orders' && ++lists === 3)
        world!.sandbox.setFaults('error_rate=1,only=GET /orders');
    });
    await expect(discoverOrders(await world.context())).rejects.toThrow();
    stop();
    world.sandbox.setFaults(null);
    const seen = orderRepositoriesOf((await world.context()).store).seen;
    expect(seen.queued()).toEqual(created.slice(-6));

    // Page 1 holds only known orders now; the scan does not stop there.
    await discoverOrders(await world.context());
    expect(seen.queued()).toEqual(created);
    const run = await runOrders(await world.context(), RUN);
    expect(run.extra.imported).toBe(9);
    expect((await outboxIds(join(world.dir, 'erp'))).ids).toEqual(expect.arrayContaining(created));
  });
});

describe('parked orders', () => {
  it('parks an order the ERP refuses with its reason, retries it on later polls without dropping it, and imports it once fixed', async () => {
    world = await startOrderWorld({
      config: {
        erp: { type: 'file', outbox: { requireKnownSkus: true } },
        orders: { parkedRetryMinutes: 0 },
      },
    });
    const erpDir = join(world.dir, 'erp');
    await mkdir(erpDir, { recursive: true });
    const skus: string[] = [];
    for await (const product of world.api.products.iterate()) {
      if (product.sku) skus.push(product.sku);
      for (const variant of product.variants ?? []) if (variant.sku) skus.push(variant.sku);
    }
    const unknownSku = await sellableSku(world.api);
    const known = skus.filter((s) => s !== unknownSku);
    await writeFile(join(erpDir, 'stock.csv'), `sku,quantity\n${known.map((s) => `${s},1`).join('\n')}\n`);

    const order = await createPlatformOrder(world.api, unknownSku, 2);
    await runOrders(await world.context(), RUN);
    const repos = orderRepositoriesOf((await world.context()).store);
    const parked = repos.parked.get(order.id);
    expect(parked?.reason).toContain(unknownSku);
    expect(repos.links.get(order.id)).toBeUndefined();

    for (let i = 0; i < 4; i++) await runOrders(await world.context(), RUN);
    expect(repos.parked.get(order.id)?.attempts).toBe(5);

    // Visible in `erp-sync status` with its reason, and the report never carries the API key.
    const report = buildStatusReport((await world.context()).store);
    expect(report.parkedOrders).toEqual([expect.objectContaining({ orderId: order.id, attempts: 5 })]);
    expect(report.parkedOrders[0]!.reason).toContain(unknownSku);
    expect(report.pipelines.find((p) => p.pipeline === 'orders')?.status).toBe('ok');
    expect(JSON.stringify(report)).not.toContain(world.sandbox.keys.primary);
    expect(formatStatusReport(report)).toContain(`#${order.id}`);

    await writeFile(join(erpDir, 'stock.csv'), `sku,quantity\n${skus.map((s) => `${s},1`).join('\n')}\n`);
    repos.parked.makeDue([order.id]);
    const fixed = await runOrders(await world.context(), RUN);
    expect(fixed.extra.imported).toBe(1);
    expect(repos.parked.get(order.id)).toBeUndefined();
    expect(repos.links.get(order.id)?.erpRef).toBe(`${order.id}.json`);
  });
});
