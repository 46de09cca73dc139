import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ErpAdapter } from '../../../src/erp/ErpAdapter.js';
import { connectSql } from '../../../src/erp/sql/connectSql.js';
import { sqlErpConfigSchema } from '../../../src/erp/sql/sqlConfigSchema.js';
import { stagingSchema } from '../../../src/erp/sql/stagingTables.js';
import { runErpOrders } from '../../../src/sync/orders/erpOrders.js';
import { runFeedback } from '../../../src/sync/orders/feedback.js';
import { runOrders } from '../../../src/sync/orders/orders.js';
import { createOrderReservations } from '../../../src/sync/orders/reservations.js';
import { runStock } from '../../../src/sync/push/stock.js';
import type { SyncContext } from '../../../src/sync/frame/types.js';
import { createPlatformOrder, sellableSku, writeInboxOrder } from '../../support/orderChecks.js';
import { startOrderWorld, type OrderWorld } from '../../support/orderWorld.js';

const RUN = { full: false, dryRun: false };
let world: OrderWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** The real file adapter, with `afterRead` run once the stock file has been read to its end. */
function readThen(erp: ErpAdapter, afterRead: () => Promise<void>): ErpAdapter {
  return new Proxy(erp, {
    get(target, property) {
      if (property === 'stock') {
        return async function* () {
          yield* target.stock();
          await afterRead();
        };
      }
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

async function platformStock(world: OrderWorld, sku: string): Promise<number> {
  const found = await world.api.products.list({ search: sku });
  return found.data.find((p) => p.sku === sku)!.stock_quantity ?? NaN;
}

function guarded(ctx: SyncContext): SyncContext {
  return { ...ctx, reservations: createOrderReservations(ctx) };
}

describe('oversell guard', () => {
  for (const enabled of [true, false]) {
    it(`${enabled ? 'keeps' : 'without the guard, gives back'} the units of an order placed between the ERP read and the stock push`, async () => {
      world = await startOrderWorld({
        config: { orders: { oversellGuard: { enabled, windowMinutes: 30 } } },
      });
      const sku = await sellableSku(world.api, 10);
      const erpDir = join(world.dir, 'erp');
      await mkdir(erpDir, { recursive: true });
      await writeFile(join(erpDir, 'stock.csv'), `sku,quantity\n${sku},10\n`);
      await runOrders(await world.context(), RUN); // the ERP has every earlier order

      const ctx = guarded(await world.context());
      const api = world.api;
      ctx.erp = readThen(ctx.erp, async () => {
        await createPlatformOrder(api, sku, 3); // the platform decrements to 7
      });
      const run = await runStock(ctx, { full: true, dryRun: false });
      expect(run.error).toBeUndefined();
      expect(await platformStock(world, sku)).toBe(enabled ? 7 : 10);
    });
  }

  it('does not hold the units of an order born in the ERP (erp-orders): the ERP quantity is pushed as it is', async () => {
    world = await startOrderWorld();
    const sku = await sellableSku(world.api, 10);
    const erpDir = join(world.dir, 'erp');
    await writeFile(join(erpDir, 'stock.csv'), `sku,quantity\n${sku},10\n`);
    await runOrders(await world.context(), RUN); // the ERP has every earlier order
    await runStock(guarded(await world.context()), { full: true, dryRun: false });
    expect(await platformStock(world, sku)).toBe(10);

    // A phone order taken in the ERP: its stock already says 7, and erp-orders creates it.
    await writeInboxOrder(erpDir, 'PHONE-1.json', {
      source_order_id: 'PHONE-1',
      customer: { name: 'Phone Client', email: 'phone.client@example.ro' },
      items: [{ sku, quantity: 3 }],
    });
    await writeFile(join(erpDir, 'stock.csv'), `sku,quantity\n${sku},7\n`);
    expect((await runErpOrders(await world.context(), RUN)).applied).toBe(1);

    // Before any orders poll (the guard's look at the platform sees it as new) ...
    const first = await runStock(guarded(await world.context()), { full: true, dryRun: false });
    expect(first.error).toBeUndefined();
    expect(await platformStock(world, sku)).toBe(7);
    // ... and after one (remembered as ERP-origin, without lines to hold).
    await writeFile(join(erpDir, 'stock.csv'), `sku,quantity\n${sku},6\n`);
    const poll = await runOrders(await world.context(), RUN);
    expect(poll.extra.imported ?? 0).toBe(0);
    await runStock(guarded(await world.context()), { full: true, dryRun: false });
    expect(await platformStock(world, sku)).toBe(6);
  });

  it('holds the units until the ERP acknowledges the order, then follows the ERP', async () => {
    world = await startOrderWorld();
    const sku = await sellableSku(world.api, 10);
    const erpDir = join(world.dir, 'erp');
    await mkdir(erpDir, { recursive: true });
    await writeFile(join(erpDir, 'stock.csv'), `sku,quantity\n${sku},10\n`);
    await runOrders(await world.context(), RUN);
    const order = await createPlatformOrder(world.api, sku, 3);
    await runOrders(await world.context(), RUN); // imported, not acknowledged yet

    await runStock(guarded(await world.context()), { full: true, dryRun: false });
    expect(await platformStock(world, sku)).toBe(7);

    // The ERP takes the order (its stock now says 7) and confirms it.
    await writeFile(join(erpDir, 'stock.csv'), `sku,quantity\n${sku},7\n`);
    await writeFile(join(erpDir, 'events.csv'), `order_id,event\n${order.id},confirmed\n`);
    await runFeedback(await world.context(), RUN);
    await runStock(guarded(await world.context()), { full: true, dryRun: false });
    expect(await platformStock(world, sku)).toBe(7);
  });
});

describe('oversell guard: an order the ERP has taken is not held again (reserved units counted once)', () => {
  it('file, stockSubtractsImportedOrders: the ERP export that already subtracts an imported order is pushed as it is', async () => {
    world = await startOrderWorld({ config: { erp: { stockSubtractsImportedOrders: true } } });
    const sku = await sellableSku(world.api, 10);
    const erpDir = join(world.dir, 'erp');
    await writeFile(join(erpDir, 'stock.csv'), `sku,quantity\n${sku},10\n`);
    await runOrders(await world.context(), RUN);
    await createPlatformOrder(world.api, sku, 3);
    await runOrders(await world.context(), RUN); // in outbox/orders/: the ERP's export counts it

    await writeFile(join(erpDir, 'stock.csv'), `sku,quantity\n${sku},7\n`);
    const run = await runStock(guarded(await world.context()), { full: true, dryRun: false });
    expect(run.error).toBeUndefined();
    expect(await platformStock(world, sku)).toBe(7);
  });

  it('file, by default: an imported order the ERP export does not show yet is held until the ERP acknowledges it', async () => {
    world = await startOrderWorld();
    const sku = await sellableSku(world.api, 10);
    const erpDir = join(world.dir, 'erp');
    await writeFile(join(erpDir, 'stock.csv'), `sku,quantity\n${sku},10\n`);
    await runOrders(await world.context(), RUN);
    const order = await createPlatformOrder(world.api, sku, 3);
    await runOrders(await world.context(), RUN);
    // The ERP has not taken it: its export still says 10, several runs in a row.
    for (let i = 0; i < 2; i++) {
      await runStock(guarded(await world.context()), { full: true, dryRun: false });
      expect(await platformStock(world, sku)).toBe(7);
    }
    await writeFile(join(erpDir, 'events.csv'), `order_id,event\n${order.id},confirmed\n`);
    await writeFile(join(erpDir, 'stock.csv'), `sku,quantity\n${sku},7\n`);
    await runFeedback(await world.context(), RUN);
    await runStock(guarded(await world.context()), { full: true, dryRun: false });
    expect(await platformStock(world, sku)).toBe(7);
  });

  for (const subtracts of [true, false]) {
    it(`SQL, a stock query that subtracts the staged lines, stockSubtractsImportedOrders ${subtracts}: ${subtracts ? 'pushes the query as it is' : 'the default holds the order again (say so in the config)'}`, async () => {
      const dir = await mkdtemp(join(tmpdir(), 'guard-sql-'));
      try {
        const filename = join(dir, 'erp.sqlite');
        const erp = {
          type: 'sql',
          client: 'sqlite',
          connection: { filename },
          queries: {
            stock: `select i.code as sku, i.qty - coalesce((select sum(l.quantity) from erp_sync_order_lines l
                      where l.sku = i.code), 0) as quantity from items i order by i.code`,
          },
          ...(subtracts ? { stockSubtractsImportedOrders: true } : {}),
        };
        world = await startOrderWorld({ config: { erp } });
        const sku = await sellableSku(world.api, 10);
        const db = connectSql(sqlErpConfigSchema().parse(erp));
        try {
          await stagingSchema(db, sqlErpConfigSchema().parse(erp).staging);
          await db.raw('create table items (code text primary key, qty integer not null)');
          await db('items').insert({ code: sku, qty: 10 });
        } finally {
          await db.destroy();
        }
        await runOrders(await world.context(), RUN);
        await createPlatformOrder(world.api, sku, 3);
        expect((await runOrders(await world.context(), RUN)).extra.imported).toBe(1);

        const run = await runStock(guarded(await world.context()), { full: true, dryRun: false });
        expect(run.error).toBeUndefined();
        expect(await platformStock(world, sku)).toBe(subtracts ? 7 : 4);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  }
});
