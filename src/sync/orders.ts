import type { ApiOrder } from '../api/schemas.js';
import { describeError, isErpSyncError } from '../domain/errors.js';
import { orderRepositoriesOf } from '../store/orderRepositories.js';
import { importPlatformOrder, type ImportOutcome } from './orderImport.js';
import { scanForUnseenOrders, type ListedOrder, type ScanResult } from './orderPoll.js';
import { countExtra } from './ordersPipelineRun.js';
import { deliverOrderChanges, sweepOrderChanges } from './orderUpdates.js';
import { nextOrderChange } from './orderChanges.js';
import { createPool } from './pool.js';
import { erpOriginIds } from './reservations.js';
import { runInFrame, type PipelineRun } from './runInFrame.js';
import type { RunOptions, RunSummary, SyncContext } from './types.js';

const SWEEP_CURSOR = 'orders.updates.swept_at';

type Listed = ListedOrder & { order: ApiOrder };

/**
 * Platform -> ERP orders: find unseen orders (recorded in the store before any import), import
 * each once through the adapter, retry parked orders that are due, and deliver changes of
 * imported orders (cancelled, paid, returned) to the ERP once per change.
 */
export function runOrders(
  ctx: SyncContext,
  options: RunOptions,
  importer: OrderImporter = importQueued,
): Promise<RunSummary> {
  return runInFrame('orders', ctx, options, (run) => pollOrders(run, importer));
}

/**
 * How a run imports the queued orders and the parked ones due for a retry (ids, queued first):
 * inline by default; a daemon's poll job hands each to an import job instead.
 */
export type OrderImporter = (run: PipelineRun, ids: number[]) => Promise<void>;

async function pollOrders(run: PipelineRun, importer: OrderImporter): Promise<void> {
  const { ctx, options, summary, lease } = run;
  const repos = orderRepositoriesOf(ctx.store);
  const { scan, skipped } = await discoverOrders(ctx, {
    dryRun: options.dryRun,
    assertLease: () => lease.assertHeld(),
  });
  summary.read = scan.unseen.length + scan.known.length;
  countExtra(summary, 'pagesRead', scan.pagesRead);
  countExtra(summary, 'unseen', scan.unseen.length);
  if (options.dryRun) {
    previewOrders(ctx, scan, summary);
    return;
  }
  countExtra(summary, 'skipped', skipped);

  await importer(run, ordersToImport(ctx));

  // Changes of imported orders met on the pages just read cost no extra list request.
  for (const listed of scan.known) {
    const link = repos.links.get(listed.id);
    if (!link) continue;
    const current = { status: listed.order.status, paymentStatus: listed.order.payment_status };
    countExtra(summary, 'updates', await deliverOrderChanges(ctx, link, current));
  }
  if (sweepDue(ctx, options)) {
    const since = new Date(Date.now() - ctx.config.orders.updates.lookbackDays * 86_400_000).toISOString();
    const swept = await sweepOrderChanges(ctx, repos.links.open(since));
    countExtra(summary, 'updates', swept.delivered);
    countExtra(summary, 'sweepPages', swept.pagesRead);
    ctx.store.cursors.set(SWEEP_CURSOR, new Date().toISOString());
  }
  summary.extra.parkedTotal = repos.parked.count();
}

/**
 * The poll's first half, also usable alone (a daemon's poll job that fans out one import job per
 * order): scans for unseen orders and records them all as queued (with their lines, for the
 * oversell guard) in one transaction, before anything is imported, so that a later scan can trust
 * a page of known orders. Orders listed in a status that is not imported are decided at once.
 * Then `importPlatformOrder(ctx, id)` for each of `store.orders.seen.queued()`.
 */
export async function discoverOrders(
  ctx: SyncContext,
  options: { dryRun?: boolean; assertLease?: () => void } = {},
): Promise<{ scan: ScanResult<Listed>; skipped: number }> {
  const repos = orderRepositoriesOf(ctx.store);
  const perPage = ctx.config.orders.perPage;
  const scan = await scanForUnseenOrders<Listed>(
    async (page) => {
      options.assertLease?.();
      const result = await ctx.client.orders.list({ per_page: perPage, page });
      return {
        items: result.data.map((order) => ({ id: order.id, createdAt: order.created_at, order })),
        lastPage: result.meta.last_page,
      };
    },
    (ids) => repos.seen.known(ids),
  );
  if (options.dryRun) return { scan, skipped: 0 };
  const importable = new Set(ctx.config.orders.importStatuses);
  const erpOrigin = erpOriginIds(
    repos.outgoing,
    scan.unseen.map((o) => o.order),
  );
  let skipped = 0;
  ctx.store.transaction(() => {
    repos.seen.enqueue(scan.unseen.map((o) => ({ id: o.id, createdAt: o.createdAt })));
    for (const { order } of scan.unseen) {
      if (erpOrigin.has(order.id)) {
        // Created by us from the ERP: never imported back, and its units are in the ERP's stock.
        repos.seen.setOutcome(order.id, 'erp_origin', order.status, order.created_at);
      } else if (importable.has(order.status)) {
        repos.links.replaceLines(order.id, listedUnits(order));
      } else {
        repos.seen.setOutcome(order.id, 'skipped', order.status, order.created_at);
        skipped += 1;
      }
    }
  });
  return { scan, skipped };
}

/** The queued orders, then the parked ones due for a retry. */
function ordersToImport(ctx: SyncContext): number[] {
  const repos = orderRepositoriesOf(ctx.store);
  const queued = repos.seen.queued();
  const queuedSet = new Set(queued);
  const due = repos.parked
    .due()
    .map((p) => p.platformOrderId)
    .filter((id) => !queuedSet.has(id));
  return [...queued, ...due];
}

/** Imports the orders, a few at once. */
async function importQueued(run: PipelineRun, ids: number[]): Promise<void> {
  const { ctx, options, summary, lease } = run;
  const pool = createPool(ctx.config.orders.concurrency);
  const tally = (outcome: ImportOutcome) => {
    countExtra(summary, outcome);
    if (outcome === 'imported' || outcome === 'already_in_erp') summary.applied += 1;
    if (outcome === 'parked') summary.rejected += 1;
  };
  for (const id of ids) {
    if (options.signal?.aborted) break;
    await pool.submit(async () => {
      lease.assertHeld();
      summary.sent += 1;
      try {
        tally(await importPlatformOrder(ctx, id));
      } catch (error) {
        if (isErpSyncError(error) && error.fatal) throw error;
        // Stays queued (or parked): the next run tries it again.
        summary.failed += 1;
        ctx.logger.warn({ orderId: id, error: describeError(error) }, 'order not imported this run');
      }
      run.progress();
    });
  }
  await pool.drain();
}

/**
 * What a real run would do, without writing: import the unseen orders in an imported status (not
 * ERP-origin ones), the queued ones and the parked ones due, and deliver the changes of imported
 * orders seen on the pages read. Orders in other statuses are only counted (`wouldSkip`).
 */
function previewOrders(ctx: SyncContext, scan: ScanResult<Listed>, summary: RunSummary): void {
  const repos = orderRepositoriesOf(ctx.store);
  const importable = new Set(ctx.config.orders.importStatuses);
  const erpOrigin = erpOriginIds(
    repos.outgoing,
    scan.unseen.map((o) => o.order),
  );
  const imports: Record<string, unknown>[] = [];
  let wouldSkip = 0;
  for (const { order } of scan.unseen) {
    if (erpOrigin.has(order.id)) continue;
    if (importable.has(order.status)) imports.push({ import: order.id, status: order.status });
    else wouldSkip += 1;
  }
  const listed = new Set(scan.unseen.map((o) => o.id));
  for (const id of repos.seen.queued()) if (!listed.has(id)) imports.push({ import: id, queued: true });
  for (const parked of repos.parked.due()) {
    if (!listed.has(parked.platformOrderId)) imports.push({ import: parked.platformOrderId, parked: true });
  }
  const updates: Record<string, unknown>[] = [];
  for (const { id, order } of scan.known) {
    const link = repos.links.get(id);
    const change =
      link && nextOrderChange(link, { status: order.status, paymentStatus: order.payment_status });
    if (!link || !change) continue;
    updates.push({
      update: id,
      status: `${link.status} -> ${change.status}`,
      payment: `${link.paymentStatus} -> ${change.paymentStatus}`,
    });
  }
  summary.sent = imports.length + updates.length;
  countExtra(summary, 'wouldImport', imports.length);
  countExtra(summary, 'wouldUpdate', updates.length);
  countExtra(summary, 'wouldSkip', wouldSkip);
  summary.preview = [...imports, ...updates].slice(0, 20);
}

function sweepDue(ctx: SyncContext, options: RunOptions): boolean {
  if (options.full) return true;
  const last = ctx.store.cursors.get(SWEEP_CURSOR);
  if (!last) {
    // First run: everything linked was imported just now, in its current state.
    ctx.store.cursors.set(SWEEP_CURSOR, new Date().toISOString());
    return false;
  }
  return Date.now() - Date.parse(last) >= ctx.config.orders.updates.sweepMinutes * 60_000;
}

function listedUnits(order: ApiOrder): { sku: string; quantity: number }[] {
  return order.items.filter((line) => line.sku).map((line) => ({ sku: line.sku!, quantity: line.quantity }));
}
