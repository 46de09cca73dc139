import { describe, expect, it } from 'vitest';
import type { ErpAdapter } from '../../../../src/erp/ErpAdapter.js';
import { explainSku } from '../../../../src/diagnostics/explainSku.js';
import { runOrders } from '../../../../src/sync/orders/orders.js';
import { createOrderReservations } from '../../../../src/sync/orders/reservations.js';
import { runStock } from '../../../../src/sync/push/stock.js';
import type { SyncContext } from '../../../../src/sync/frame/types.js';
import { TRYTON_SEED, type TrytonWorld, useTrytonWorld } from '../../../support/trytonWorld.js';

const RUN = { full: false, dryRun: false };
const FULL = { full: true, dryRun: false };
let world: TrytonWorld;

useTrytonWorld((started) => (world = started));

/** The context with the oversell guard on (the world's configuration has it off). */
function guarded(ctx: SyncContext): SyncContext {
  const config = {
    ...ctx.config,
    orders: { ...ctx.config.orders, oversellGuard: { enabled: true, windowMinutes: 30 } },
  };
  const on = { ...ctx, config };
  return { ...on, reservations: createOrderReservations(on) };
}

/** Tryton's quantity per SKU over both warehouses, as the adapter reads it. */
async function trytonStock(field: 'forecast_quantity' | 'quantity'): Promise<Map<string, number>> {
  const rows = await world.rpc.model<({ code: string } & Record<string, number>)[]>(
    'product.product',
    'search_read',
    [[['code', 'in', TRYTON_SEED.skus]], 0, null, null, ['code', field]],
    { locations: Object.values(TRYTON_SEED.warehouses), with_childs: true },
  );
  return new Map(rows.map((row) => [row.code, Math.max(0, Math.floor(row[field]!))]));
}

async function platformStock(): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const sku of TRYTON_SEED.skus)
    out.set(sku, (await world.api.products.get(world.productIds.get(sku)!)).stock_quantity ?? NaN);
  return out;
}

async function placeOrders(lines: { sku: string; quantity: number }[]): Promise<number[]> {
  const ids: number[] = [];
  for (const [n, line] of lines.entries()) {
    const order = await world.api.orders.create({
      customer: { name: `Client ${n}`, email: `guard.client.${n}@example.ro` },
      items: [line],
    });
    ids.push(order.id);
  }
  return ids;
}

/** The real adapter, with `afterRead` run once its stock read reached its end. */
function readThen(erp: ErpAdapter, afterRead: () => Promise<void>): ErpAdapter {
  return new Proxy(erp, {
    get(target, property) {
      if (property === 'stock')
        return async function* (...args: Parameters<ErpAdapter['stock']>) {
          yield* target.stock(...args);
          await afterRead();
        };
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

describe(
  'oversell guard with Tryton: the forecast already subtracts confirmed sales, they are not held again',
  { timeout: 120_000 },
  () => {
    it('imports orders, then pushes exactly the forecast for every SKU', async () => {
      const ctx = guarded(await world.context());
      expect(await runStock(ctx, RUN)).toMatchObject({ read: 20, failed: 0 });
      expect(ctx.erp.capabilities.stockSubtractsImportedOrders).toBe(true);

      const lines = Array.from({ length: 12 }, (_, n) => ({
        sku: TRYTON_SEED.skus[n % 6]!,
        quantity: 1 + (n % 3),
      }));
      await placeOrders(lines);
      expect((await runOrders(ctx, RUN)).extra.imported).toBe(12);

      const stock = await runStock(ctx, RUN);
      expect(stock).toMatchObject({ failed: 0 });
      const forecast = await trytonStock('forecast_quantity');
      expect(await platformStock()).toEqual(forecast);
      // 2 + 3 + 1 + 2 + 3 + 1 ... units ordered per SKU, subtracted once (by Tryton), not twice.
      const story = await explainSku(ctx, 'SKU-0002');
      expect(story.items[0]!.stock).toMatchObject({
        held: 0,
        holdingOrders: [],
        wouldPush: forecast.get('SKU-0002'),
      });
    });

    it('holds an order imported after the stock read began (the read does not show it yet): the push still equals the forecast', async () => {
      const ctx = guarded(await world.context());
      const before = await trytonStock('forecast_quantity');
      await placeOrders([{ sku: 'SKU-0009', quantity: 4 }]);
      const importer = await world.context();
      ctx.erp = readThen(ctx.erp, async () => {
        expect((await runOrders(importer, RUN)).extra.imported).toBe(1);
      });
      expect(await runStock(ctx, FULL)).toMatchObject({ failed: 0 });
      const forecast = await trytonStock('forecast_quantity');
      expect(forecast.get('SKU-0009')).toBe(before.get('SKU-0009')! - 4);
      expect((await platformStock()).get('SKU-0009')).toBe(forecast.get('SKU-0009'));
    });

    it("with the on-hand quantity (done moves only), an imported sale is held until shipped or the guard's window", async () => {
      const ctx = guarded(await world.context({ stock: { field: 'quantity' } }));
      expect(ctx.erp.capabilities.stockSubtractsImportedOrders).toBe(false);
      const [id] = await placeOrders([{ sku: 'SKU-0011', quantity: 2 }]);
      expect((await runOrders(ctx, RUN)).extra.imported).toBe(1);
      expect(await runStock(ctx, FULL)).toMatchObject({ failed: 0 });
      const onHand = await trytonStock('quantity');
      const platform = await platformStock();
      expect(platform.get('SKU-0011')).toBe(onHand.get('SKU-0011')! - 2);
      const story = await explainSku(ctx, 'SKU-0011');
      expect(story.items[0]!.stock).toMatchObject({ held: 2, holdingOrders: [{ orderId: id, units: 2 }] });
    });
  },
);
