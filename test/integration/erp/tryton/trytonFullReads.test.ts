import { describe, expect, it } from 'vitest';
import { CalendarDate, TrytonDecimal } from '../../../../src/erp/tryton/trytonValues.js';
import { trytonConfigSlice } from '../../../../src/erp/tryton/trytonConfigSchema.js';
import { runStock } from '../../../../src/sync/push/stock.js';
import { runCli } from '../../../support/cli.js';
import { TRYTON_SEED, type TrytonWorld, useTrytonWorld } from '../../../support/trytonWorld.js';

const RUN = { full: false, dryRun: false };
let world: TrytonWorld;

useTrytonWorld((started) => (world = started));

const seedStock = (sku: string): number => {
  const index = TRYTON_SEED.skus.indexOf(sku);
  return TRYTON_SEED.stockWh(index) + TRYTON_SEED.stockWh2(index);
};

async function locationId(code: string): Promise<number> {
  const [row] = await world.rpc.model<{ id: number }[]>('stock.location', 'search_read', [
    [['code', '=', code]],
    0,
    1,
    null,
    ['id'],
  ]);
  return row!.id;
}

async function productId(sku: string): Promise<number> {
  const [row] = await world.rpc.model<{ id: number }[]>('product.product', 'search_read', [
    [['code', '=', sku]],
    0,
    1,
    null,
    ['id'],
  ]);
  return row!.id;
}

/** A planned move of `quantity` units from the supplier into `to` in two days: the forecast counts it. */
async function plannedReceipt(sku: string, quantity: number, to: string) {
  const date = CalendarDate.fromDate(new Date(Date.now() + 2 * 86_400_000));
  return {
    product: await productId(sku),
    from_location: await locationId('SUP'),
    to_location: await locationId(to),
    quantity,
    uom: 1,
    planned_date: date,
    company: TRYTON_SEED.companyId,
    unit_price: new TrytonDecimal('1.00'),
    currency: 1,
  };
}

async function platformStock(sku: string): Promise<number | null | undefined> {
  return (await world.api.products.get(world.productIds.get(sku)!)).stock_quantity;
}

interface AuditJson {
  findings: {
    kind: string;
    key: string;
    platform: unknown;
    expected: unknown;
    heals: boolean;
    why: string;
  }[];
  fix?: { outcome: { summaries: { applied: number }[] } };
}

async function audit(...flags: string[]): Promise<{ code: number | null; report: AuditJson }> {
  const result = await runCli(
    ['audit', '--pipeline', 'stock', '--json', '--config', world.configPath, ...flags],
    world.env,
    { timeoutMs: 90_000 },
  );
  expect(result.stdout, result.stderr).toMatch(/^\{/);
  return { code: result.code, report: JSON.parse(result.stdout) as AuditJson };
}

describe(
  'Tryton stock: what the incremental read cannot see arrives by the periodic full read',
  { timeout: 120_000 },
  () => {
    it('reads every product at least every 60 minutes by default, configurable', () => {
      const base = { type: 'tryton', url: 'http://127.0.0.1:8000/', database: 'erp', password: 'x' };
      expect(trytonConfigSlice.schema.parse(base).stock.fullEveryMinutes).toBe(60);
      expect(trytonConfigSlice.schema.parse(base).prices.fullEveryMinutes).toBe(1440);
      expect(
        trytonConfigSlice.schema.parse({ ...base, stock: { fullEveryMinutes: 5 } }).stock.fullEveryMinutes,
      ).toBe(5);
    });

    it('a deleted planned receipt and a cancelled supplier shipment: the forecast goes back on the platform without --full, and audit says which only a full read heals', async () => {
      const ctx = await world.context();
      expect(await runStock(ctx, RUN)).toMatchObject({ read: 20, failed: 0 });
      expect(await platformStock('SKU-0003')).toBe(seedStock('SKU-0003'));

      // A planned receipt of 25 for SKU-0003, and a supplier shipment of 25 for SKU-0004.
      const [move] = await world.rpc.model<number[]>('stock.move', 'create', [
        [await plannedReceipt('SKU-0003', 25, 'STO')],
      ]);
      const [party] = await world.rpc.model<{ id: number }[]>('party.party', 'search_read', [
        [],
        0,
        1,
        null,
        ['id'],
      ]);
      const [shipment] = await world.rpc.model<number[]>('stock.shipment.in', 'create', [
        [
          {
            supplier: party!.id,
            warehouse: TRYTON_SEED.warehouses.WH,
            company: TRYTON_SEED.companyId,
            incoming_moves: [['create', [await plannedReceipt('SKU-0004', 25, 'IN')]]],
          },
        ],
      ]);
      expect(await runStock(ctx, RUN)).toMatchObject({ failed: 0 });
      expect(await platformStock('SKU-0003')).toBe(seedStock('SKU-0003') + 25);
      expect(await platformStock('SKU-0004')).toBe(seedStock('SKU-0004') + 25);

      // The receipt is deleted (no move is left to read), the shipment cancelled (its moves are written).
      await world.rpc.model('stock.move', 'delete', [[move]]);
      await world.rpc.model('stock.shipment.in', 'cancel', [[shipment]]);
      expect(await runStock(ctx, RUN)).toMatchObject({ failed: 0 });
      expect(await platformStock('SKU-0004')).toBe(seedStock('SKU-0004'));
      // The incremental read does not see the deletion: the platform still shows 25 units too many.
      expect(await platformStock('SKU-0003')).toBe(seedStock('SKU-0003') + 25);

      const found = await audit();
      expect(found.code).toBe(1);
      expect(found.report.findings).toEqual([
        {
          kind: 'stock',
          key: 'SKU-0003',
          platform: seedStock('SKU-0003') + 25,
          expected: seedStock('SKU-0003'),
          heals: true,
          why: expect.stringMatching(
            /^only a full read heals it: the ERP's incremental stock read does not see this change .*at least every 60 minutes.*audit --fix/,
          ) as string,
        },
      ]);

      const explained = await runCli(
        ['explain', 'sku', 'SKU-0003', '--json', '--config', world.configPath],
        world.env,
      );
      const story = JSON.parse(explained.stdout) as {
        items: { stock: { verdict: { state: string; text: string } } }[];
      };
      expect(story.items[0]!.stock.verdict).toMatchObject({
        state: 'pending',
        text: expect.stringMatching(
          /^will be pushed by the next full read: only a full read heals it/,
        ) as string,
      });

      // Within the full-read period (here 3 seconds), a plain run reads everything and heals it.
      const short = await world.context({ stock: { fullEveryMinutes: 0.05 } });
      await new Promise((resolve) => setTimeout(resolve, 3_100));
      expect(await runStock(short, RUN)).toMatchObject({ read: 20, sent: 1, applied: 1, failed: 0 });
      expect(await platformStock('SKU-0003')).toBe(seedStock('SKU-0003'));
      expect((await audit()).code).toBe(0);
    });

    it('audit --fix pushes the value only a full read would send', async () => {
      const ctx = await world.context();
      const [move] = await world.rpc.model<number[]>('stock.move', 'create', [
        [await plannedReceipt('SKU-0008', 10, 'STO')],
      ]);
      expect(await runStock(ctx, RUN)).toMatchObject({ failed: 0 });
      expect(await platformStock('SKU-0008')).toBe(seedStock('SKU-0008') + 10);
      await world.rpc.model('stock.move', 'delete', [[move]]);

      const fixed = await audit('--fix', '--inline');
      expect(fixed.report.findings.map((f) => [f.key, f.heals])).toEqual([['SKU-0008', true]]);
      expect(fixed.report.fix?.outcome.summaries.map((s) => s.applied)).toEqual([1]);
      expect(await platformStock('SKU-0008')).toBe(seedStock('SKU-0008'));
      expect((await audit()).code).toBe(0);
    });
  },
);
