import { afterEach, describe, expect, it } from 'vitest';
import { orderRepositoriesOf } from '../../../src/store/createOrderRepositories.js';
import { importPlatformOrder } from '../../../src/sync/orders/orderImport.js';
import { runOrders } from '../../../src/sync/orders/orders.js';
import { startOrderWorld, type OrderWorld } from '../../support/orderWorld.js';
import { createPlatformOrder, outboxIds, platformOrderIds, sellableSku } from '../../support/orderChecks.js';
import { join } from 'node:path';
import { requireErpOrderPart } from '../../../src/erp/erpOrderPart.js';

const RUN = { full: false, dryRun: false };
let world: OrderWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe('orders poll against the sandbox', () => {
  for (const ordersOrder of ['desc', 'asc'] as const) {
    it(`imports every order of the configured statuses once, and a rerun imports nothing (${ordersOrder})`, async () => {
      world = await startOrderWorld({ ordersOrder });
      const expected = await platformOrderIds(world.api, ['new', 'confirmed']);
      expect(expected.length).toBeGreaterThan(10);

      const first = await runOrders(await world.context(), RUN);
      expect(first.error).toBeUndefined();
      const outbox = await outboxIds(join(world.dir, 'erp'));
      expect(outbox.ids).toEqual(expected);
      expect(outbox.temp).toEqual([]);
      const repos = orderRepositoriesOf((await world.context()).store);
      expect(repos.links.count()).toBe(expected.length);

      world.sandbox.requestLog.clear();
      const second = await runOrders(await world.context(), RUN);
      expect(second.extra.imported ?? 0).toBe(0);
      const requests = world.sandbox.requestLog.entries();
      expect(requests.length).toBeLessThanOrEqual(2);
      expect(requests.every((r) => r.method === 'GET' && r.path.endsWith('/orders'))).toBe(true);

      // New orders placed meanwhile are found on the next poll, whatever the list order.
      const sku = await sellableSku(world.api);
      const placed = [await createPlatformOrder(world.api, sku), await createPlatformOrder(world.api, sku)];
      const third = await runOrders(await world.context(), RUN);
      expect(third.extra.imported).toBe(2);
      const after = await outboxIds(join(world.dir, 'erp'));
      expect(after.ids).toEqual([...expected, ...placed.map((o) => o.id)].sort((a, b) => a - b));
    });
  }
});

describe('an import job for an order the store has linked already', () => {
  it('is answered from the link: no GET, no second call to the ERP', async () => {
    world = await startOrderWorld();
    const ctx = await world.context();
    await runOrders(ctx, RUN);
    const repos = orderRepositoriesOf(ctx.store);
    const [link] = repos.links.list(1);
    expect(link).toBeDefined();
    const outboxBefore = await outboxIds(join(world.dir, 'erp'));
    let erpCalls = 0;
    const erp = requireErpOrderPart(ctx.erp, 'import');
    const importOrder = erp.importOrder.bind(erp);
    erp.importOrder = async (order) => {
      erpCalls += 1;
      return importOrder(order);
    };
    world.sandbox.requestLog.clear();
    // As a second job for the order would, after BullMQ pruned the first one's id.
    expect(await importPlatformOrder(ctx, link!.platformOrderId)).toBe('already_in_erp');
    expect(world.sandbox.requestLog.entries()).toEqual([]);
    expect(erpCalls).toBe(0);
    expect(await outboxIds(join(world.dir, 'erp'))).toEqual(outboxBefore);
  });
});
