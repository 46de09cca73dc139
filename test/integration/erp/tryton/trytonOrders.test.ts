import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { orderRepositoriesOf } from '../../../../src/store/createOrderRepositories.js';
import { runFeedback } from '../../../../src/sync/orders/feedback.js';
import { runOrders } from '../../../../src/sync/orders/orders.js';
import { CLI_ENTRY } from '../../../support/cli.js';
import { CalendarDate } from '../../../../src/erp/tryton/trytonValues.js';
import { type TrytonWorld, useTrytonWorld } from '../../../support/trytonWorld.js';
import { requireErpOrderPart } from '../../../../src/erp/erpOrderPart.js';

const RUN = { full: false, dryRun: false };
let world: TrytonWorld;

// One Tryton and one platform for the file: sale references are platform order ids, which a new
// sandbox would hand out again. Each test uses its own orders and customers.
useTrytonWorld((started) => (world = started));

interface Sale {
  id: number;
  number: string | null;
  state: string;
  reference: string;
  party: number;
  shipments: number[];
  lines: number[];
  'warehouse.': { code: string };
}

async function salesFor(w: TrytonWorld, orderId: number): Promise<Sale[]> {
  return w.rpc.model<Sale[]>('sale.sale', 'search_read', [
    [['reference', '=', String(orderId)]],
    0,
    null,
    [['id', 'ASC']],
    ['number', 'state', 'reference', 'party', 'shipments', 'lines', 'warehouse.code'],
  ]);
}

async function placeOrder(w: TrytonWorld, email: string, items: { sku: string; quantity: number }[]) {
  return w.api.orders.create({ customer: { name: 'Ana Ionescu', email }, items });
}

/** `erp-sync run-once --only orders` as a child, SIGKILLed as soon as `killWhen` holds. */
function runChild(w: TrytonWorld, killWhen?: () => Promise<boolean>): Promise<{ killed: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', CLI_ENTRY, 'run-once', '--only', 'orders', '--config', w.configPath],
      { env: { PATH: process.env.PATH ?? '', ...w.env }, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    let busy = false;
    const timer =
      killWhen &&
      setInterval(() => {
        if (busy) return;
        busy = true;
        void killWhen()
          .then((now) => now && child.kill('SIGKILL'))
          .catch(() => undefined)
          .finally(() => (busy = false));
      }, 10);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (timer) clearInterval(timer);
      if (signal === 'SIGKILL') resolve({ killed: true });
      else if (code === 0) resolve({ killed: false });
      else reject(new Error(`run-once failed (${code ?? signal}): ${stderr}`));
    });
  });
}

describe('platform -> Tryton: orders', { timeout: 120_000 }, () => {
  it('turns a platform order into one confirmed sale with its customer, lines, taxes and warehouse', async () => {
    const order = await placeOrder(world, 'ana.ionescu@example.ro', [
      { sku: 'SKU-0001', quantity: 2 },
      { sku: 'SKU-0002', quantity: 1 },
    ]);
    const ctx = await world.context();
    const summary = await runOrders(ctx, RUN);
    expect(summary.error).toBeUndefined();
    const sales = await salesFor(world, order.id);
    expect(sales).toHaveLength(1);
    const [sale] = sales;
    expect(sale).toMatchObject({ state: 'processing', 'warehouse.': { code: 'WH' } });
    expect(sale!.shipments).toHaveLength(1);
    const lines = await world.rpc.model<
      { quantity: number; 'product.': { code: string }; taxes: number[]; unit: number }[]
    >('sale.line', 'read', [sale!.lines, ['quantity', 'product.code', 'taxes', 'unit']]);
    expect(lines.map((l) => [l['product.'].code, l.quantity, l.taxes.length])).toEqual([
      ['SKU-0001', 2, 1],
      ['SKU-0002', 1, 1],
    ]);
    // The sale's total equals the platform's (prices include VAT on the platform, not in Tryton).
    const [totals] = await world.rpc.model<{ total_amount: { toNumber(): number } }[]>('sale.sale', 'read', [
      [sale!.id],
      ['total_amount'],
    ]);
    expect(totals!.total_amount.toNumber()).toBeCloseTo((await world.api.orders.get(order.id)).total, 2);
    const link = orderRepositoriesOf(ctx.store).links.get(order.id);
    expect(link?.erpRef).toBe(sale!.number);

    // A second order of the same customer (same e-mail) reuses the party.
    const second = await placeOrder(world, 'ANA.IONESCU@example.ro', [{ sku: 'SKU-0003', quantity: 1 }]);
    await runOrders(ctx, RUN);
    const [again] = await salesFor(world, second.id);
    expect(again?.party).toBe(sale!.party);
  });

  it('finishes a sale cut off between create and confirm instead of creating a second one', async () => {
    const order = await placeOrder(world, 'cut@example.ro', [{ sku: 'SKU-0004', quantity: 1 }]);
    const ctx = await world.context({ orders: { confirm: false } });
    await runOrders(ctx, RUN); // quoted only: what a run killed before confirm leaves behind
    expect((await salesFor(world, order.id)).map((s) => s.state)).toEqual(['quotation']);
    const adapter = requireErpOrderPart((await world.context()).erp, 'import');
    const { toPlatformOrder } = await import('../../../../src/api/mappers.js');
    const result = await adapter.importOrder(toPlatformOrder(await world.api.orders.get(order.id)));
    expect(result.alreadyImported).toBe(true);
    const sales = await salesFor(world, order.id);
    expect(sales.map((s) => s.state)).toEqual(['processing']);
    expect(result.erpRef).toBe(sales[0]!.number);
  });

  it('imports every order exactly once when the import is SIGKILLed mid-way and run again', async () => {
    const orders: { id: number }[] = [];
    for (let i = 0; i < 4; i++) {
      orders.push(await placeOrder(world, `kill${i}@example.ro`, [{ sku: `SKU-001${i}`, quantity: 1 }]));
    }
    const anySale = async () =>
      (await world.rpc.model<number>('sale.sale', 'search_count', [
        [['reference', 'in', orders.map((o) => String(o.id))]],
      ])) > 0;
    const first = await runChild(world, anySale);
    expect(first.killed).toBe(true);
    await runChild(world);
    for (const order of orders) {
      const sales = await salesFor(world, order.id);
      expect(
        sales.map((s) => s.state),
        `order ${order.id}`,
      ).toEqual(['processing']);
    }
    const ctx = await world.context();
    const links = orderRepositoriesOf(ctx.store).links;
    for (const order of orders) expect(links.get(order.id)?.erpRef).toMatch(/^\d+$/);
  });

  it('parks an order with a SKU Tryton does not know, naming it', async () => {
    await world.api.products.create({
      name: 'Only online',
      sku: 'WEB-ONLY-1',
      status: 'active',
      price: 5,
      stock_quantity: 9,
    });
    const order = await placeOrder(world, 'park@example.ro', [
      { sku: 'SKU-0001', quantity: 1 },
      { sku: 'WEB-ONLY-1', quantity: 1 },
    ]);
    const ctx = await world.context();
    await runOrders(ctx, RUN);
    const parked = orderRepositoriesOf(ctx.store).parked.get(order.id);
    expect(parked?.reason).toContain('unknown SKU in the ERP: WEB-ONLY-1');
    expect(await salesFor(world, order.id)).toEqual([]);
  });

  it('parks an order in a currency Tryton does not have', async () => {
    const order = await world.api.orders.create({
      customer: { name: 'Euro Client', email: 'eur@example.ro' },
      items: [{ sku: 'SKU-0001', quantity: 1 }],
      currency: 'EUR',
    });
    const ctx = await world.context();
    await runOrders(ctx, RUN);
    expect(orderRepositoriesOf(ctx.store).parked.get(order.id)?.reason).toContain(
      'no currency EUR in Tryton',
    );
    expect(await salesFor(world, order.id)).toEqual([]);
  });

  it('cancels a quoted sale when the platform order is cancelled', async () => {
    const order = await placeOrder(world, 'cancel@example.ro', [{ sku: 'SKU-0005', quantity: 1 }]);
    const ctx = await world.context({ orders: { confirm: false } });
    await runOrders(ctx, RUN);
    await world.api.orders.update(order.id, { status: 'cancelled' });
    await runOrders(ctx, RUN);
    expect((await salesFor(world, order.id)).map((s) => s.state)).toEqual(['cancelled']);
  });
});

describe('Tryton -> platform: shipments', { timeout: 120_000 }, () => {
  it('marks the platform order shipped once the Tryton shipment is done, with its tracking reference, once', async () => {
    const order = await placeOrder(world, 'ship@example.ro', [{ sku: 'SKU-0006', quantity: 2 }]);
    const ctx = await world.context();
    await runOrders(ctx, RUN);
    const feedbackBefore = await runFeedback(ctx, RUN);
    expect(feedbackBefore.sent).toBe(0);
    const [sale] = await salesFor(world, order.id);
    await world.rpc.model('stock.shipment.out', 'write', [sale!.shipments, { reference: 'FAN-123456' }]);
    for (const step of ['assign_try', 'pick', 'pack', 'done']) {
      await world.rpc.model('stock.shipment.out', step, [sale!.shipments]);
    }
    const first = await runFeedback(ctx, RUN);
    expect(ctx.store.rejects.list({ pipeline: 'feedback' })).toEqual([]);
    // processing (where the confirmed sale is), then shipped: the platform's only way to shipped.
    expect(first).toMatchObject({ sent: 2, rejected: 0, failed: 0 });
    const shipped = await world.api.orders.get(order.id);
    expect(shipped.status).toBe('shipped');
    const history = (shipped as { history?: { to: string; note: string | null }[] }).history ?? [];
    const toShipped = history.filter((h) => h.to === 'shipped');
    expect(toShipped).toHaveLength(1);
    expect(toShipped[0]?.note).toContain('tracking FAN-123456');
    const second = await runFeedback(ctx, RUN);
    expect(second.sent).toBe(0);
    const full = await runFeedback(ctx, { full: true, dryRun: false });
    expect(full.sent).toBe(0);
  });
});

describe('Tryton after the platform moved on', { timeout: 120_000 }, () => {
  it('keeps a processing sale, notes the cancellation on it and refuses the change saying so', async () => {
    const order = await placeOrder(world, 'late-cancel@example.ro', [{ sku: 'SKU-0008', quantity: 1 }]);
    const ctx = await world.context();
    await runOrders(ctx, RUN);
    await world.api.orders.update(order.id, { status: 'cancelled' });
    const run = await runOrders(ctx, RUN);
    const [sale] = await salesFor(world, order.id);
    expect(sale?.state).toBe('processing');
    const [withComment] = await world.rpc.model<{ comment: string }[]>('sale.sale', 'read', [
      [sale!.id],
      ['comment'],
    ]);
    expect(withComment?.comment).toContain(
      'was cancelled on the platform; the sale is processing and was not cancelled',
    );
    expect(run.error).toBeUndefined();
    const rejects = ctx.store.rejects.list({ pipeline: 'orders' }).filter((r) => r.key === String(order.id));
    expect(rejects.map((r) => r.reason)).toEqual([
      `the ERP refused the change to cancelled: Tryton sale ${sale!.number} is processing: not cancelled there (a note was added to the sale)`,
    ]);
    // Not delivered again: the next run neither fails nor writes a second note.
    expect((await runOrders(ctx, { full: true, dryRun: false })).error).toBeUndefined();
    const [after] = await world.rpc.model<{ comment: string }[]>('sale.sale', 'read', [
      [sale!.id],
      ['comment'],
    ]);
    expect(after?.comment.split('was cancelled on the platform')).toHaveLength(2);
  });

  it('reports an invoice posted in Tryton to the platform as invoiced, once', async () => {
    const order = await placeOrder(world, 'invoice@example.ro', [{ sku: 'SKU-0009', quantity: 1 }]);
    const ctx = await world.context();
    await runOrders(ctx, RUN);
    const [sale] = await world.rpc.model<{ invoices: number[] }[]>('sale.sale', 'search_read', [
      [['reference', '=', String(order.id)]],
      0,
      1,
      null,
      ['invoices'],
    ]);
    expect(sale?.invoices).toHaveLength(1);
    await world.rpc.model('account.invoice', 'write', [
      sale!.invoices,
      { invoice_date: CalendarDate.fromDate(new Date()) },
    ]);
    await world.rpc.model('account.invoice', 'post', [sale!.invoices]);
    const first = await runFeedback(ctx, RUN);
    expect(first).toMatchObject({ rejected: 0, failed: 0 });
    expect((await world.api.orders.get(order.id)).invoice).not.toBeNull();
    expect((await runFeedback(ctx, RUN)).sent).toBe(0);
  });
});
