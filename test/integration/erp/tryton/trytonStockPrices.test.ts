import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runPrices } from '../../../../src/sync/push/prices.js';
import { runStock } from '../../../../src/sync/push/stock.js';
import { CalendarDate, TrytonDecimal } from '../../../../src/erp/tryton/trytonValues.js';
import {
  startTryton,
  startTrytonWorld,
  TRYTON_SEED,
  type TrytonWorld,
} from '../../../support/trytonWorld.js';
import type { TrytonServer } from '../../../support/trytonServer.js';

const RUN = { full: false, dryRun: false };
let tryton: TrytonServer;
let world: TrytonWorld | undefined;

beforeAll(async () => {
  tryton = await startTryton();
}, 600_000);
afterAll(async () => {
  await tryton?.stop();
});
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const round2 = (n: number) => Math.round(n * 100) / 100;

async function platformProduct(w: TrytonWorld, sku: string) {
  return w.api.products.get(w.productIds.get(sku)!);
}

/** Counts `quantity` of a SKU less in the main warehouse: a confirmed inventory (done stock moves). */
async function shipOut(w: TrytonWorld, sku: string, quantity: number): Promise<void> {
  const [storage] = await w.rpc.model<{ id: number }[]>('stock.location', 'search_read', [
    [['code', '=', 'STO']],
    0,
    1,
    null,
    ['id'],
  ]);
  const [product] = await w.rpc.model<{ id: number; quantity: number }[]>(
    'product.product',
    'search_read',
    [[['code', '=', sku]], 0, 1, null, ['quantity']],
    { locations: [storage!.id] },
  );
  const [inventory] = await w.rpc.model<number[]>('stock.inventory', 'create', [
    [
      {
        location: storage!.id,
        date: CalendarDate.fromDate(new Date()),
        company: TRYTON_SEED.companyId,
        lines: [
          [
            'create',
            [
              {
                product: product!.id,
                quantity: product!.quantity - quantity,
                expected_quantity: product!.quantity,
              },
            ],
          ],
        ],
      },
    ],
  ]);
  await w.rpc.model('stock.inventory', 'confirm', [[inventory]]);
}

// One Tryton for the file, not restored between tests: each test changes other SKUs than the ones
// the others assert on, and the first one reads the seed as it is.
describe('Tryton -> platform: stock and prices', { timeout: 120_000 }, () => {
  it('pushes the summed stock of both warehouses and the list prices with VAT for all 20 SKUs', async () => {
    world = await startTrytonWorld(tryton);
    const ctx = await world.context();
    const stock = await runStock(ctx, RUN);
    expect(stock).toMatchObject({ read: 20, applied: 20, rejected: 0, failed: 0 });
    const prices = await runPrices(ctx, RUN);
    expect(prices).toMatchObject({ read: 20, applied: 20, rejected: 0, failed: 0 });
    for (const [index, sku] of TRYTON_SEED.skus.entries()) {
      const product = await platformProduct(world, sku);
      expect(product.stock_quantity, sku).toBe(TRYTON_SEED.stockWh(index) + TRYTON_SEED.stockWh2(index));
      expect(product.price, sku).toBe(round2(TRYTON_SEED.listPrice(index) * 1.19));
      expect(product.vat_rate, sku).toBe(19);
    }
  });

  it('reads only the SKU whose stock moved since the committed checkpoint, and pushes its new quantity', async () => {
    world = await startTrytonWorld(tryton);
    const ctx = await world.context({ stock: { overlapSeconds: 0 } });
    await runStock(ctx, RUN);
    // the read's receipt, kept in the store for the next read
    const kept = JSON.parse(ctx.store.cursors.get('erp-read:stock') ?? '{}') as {
      key?: string;
      next?: string;
    };
    expect(kept).toMatchObject({ key: 'stock', next: expect.stringMatching(/^\d{4}-/) as string });
    // Moves are stamped by Tryton's clock to the microsecond: wait past the checkpoint's second.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    await shipOut(world, 'SKU-0005', 3);
    const second = await runStock(ctx, RUN);
    // Only moved products are read: the new move's, and those stamped on the checkpoint itself.
    expect(second.read).toBeLessThan(20);
    expect(second).toMatchObject({ sent: 1, applied: 1, failed: 0 });
    expect((await platformProduct(world, 'SKU-0005')).stock_quantity).toBe(
      TRYTON_SEED.stockWh(4) + TRYTON_SEED.stockWh2(4) - 3,
    );
    const third = await runStock(ctx, RUN);
    expect(third.sent).toBe(0);
  });

  it('re-reads moves inside the overlap window but sends each SKU once, unchanged ones not at all', async () => {
    world = await startTrytonWorld(tryton);
    const ctx = await world.context({ stock: { overlapSeconds: 3600 } });
    await runStock(ctx, RUN);
    await shipOut(world, 'SKU-0007', 2);
    await shipOut(world, 'SKU-0007', 1);
    const again = await runStock(ctx, RUN);
    // The seed's inventory moves are inside the hour: re-read, de-duplicated per product, unchanged.
    expect(again.read).toBeLessThanOrEqual(20);
    expect(again.sent).toBe(1);
    expect((await platformProduct(world, 'SKU-0007')).stock_quantity).toBe(
      TRYTON_SEED.stockWh(6) + TRYTON_SEED.stockWh2(6) - 3,
    );
  });

  it('pushes a list price changed on the template, reading only that product', async () => {
    world = await startTrytonWorld(tryton);
    const ctx = await world.context({ prices: { overlapSeconds: 0 } });
    await runPrices(ctx, RUN);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const [product] = await world.rpc.model<{ 'template.': { id: number } }[]>(
      'product.product',
      'search_read',
      [[['code', '=', 'SKU-0010']], 0, 1, null, ['template.id']],
    );
    await world.rpc.model('product.template', 'write', [
      [product!['template.'].id],
      { list_price: new TrytonDecimal('50.00') },
    ]);
    const second = await runPrices(ctx, RUN);
    expect(second.read).toBeLessThan(20);
    expect(second).toMatchObject({ sent: 1, applied: 1 });
    expect((await platformProduct(world, 'SKU-0010')).price).toBe(59.5);
  });

  it('reads everything again on --full, whatever the committed checkpoint', async () => {
    world = await startTrytonWorld(tryton);
    const ctx = await world.context({ stock: { overlapSeconds: 0 } });
    await runStock(ctx, RUN);
    expect(ctx.store.cursors.get('erp-read:stock')).not.toBeNull();
    const full = await runStock(ctx, { full: true, dryRun: false });
    expect(full.read).toBe(20);
  });

  it('does not advance the checkpoint of a read the pipeline did not commit (dry run)', async () => {
    world = await startTrytonWorld(tryton);
    const ctx = await world.context();
    await runStock(ctx, { full: false, dryRun: true });
    expect(ctx.store.cursors.get('erp-read:stock')).toBeNull();
    await runStock(ctx, RUN);
    expect(ctx.store.cursors.get('erp-read:stock')).not.toBeNull();
  });
});
