import { fullOrder } from '../../api/mappers.js';
import type { ApiOrder } from '../../api/schemas.js';
import { describeError } from '../../domain/errors.js';
import { orderRepositoriesOf } from '../../store/createOrderRepositories.js';
import { importItemCounts, importPlatformOrder, type ImportOutcome } from './orderImport.js';
import { erpOriginIds } from './erpOriginIds.js';
import { orderListPages, type ListedRecord, type UnreadableRecord } from './orderListPages.js';
import { scanForUnseenOrders, type ScanResult } from './orderPoll.js';
import { countExtra } from './ordersPipelineRun.js';
import { deliverOrderChanges, sweepOrderChanges } from './orderUpdates.js';
import { nextOrderChange, withoutErpCaused } from './orderChanges.js';
import { FAILURES_IN_A_ROW, FailureStreak, isSideFailure } from '../frame/failureStreak.js';
import { createPool } from '../frame/pool.js';
import { classifyFailure, stopsTheRun } from '../frame/classifyFailure.js';
import { runInFrame, type PipelineRun } from '../frame/runInFrame.js';
import type { RunFailure, RunOptions, RunSummary, SyncContext } from '../frame/types.js';
import { unitsOf } from './unitsOf.js';
import { erpOrderPart } from '../../erp/erpOrderPart.js';
import { importConcurrency } from './importConcurrency.js';

const SWEEP_CURSOR = 'orders.updates.swept_at';

/**
 * Platform -> ERP orders: find unseen orders (recorded in the store before any import), import
 * each once through the adapter, retry parked orders that are due, and deliver changes of
 * imported orders (cancelled, paid, returned) to the ERP once per change.
 */
export function runOrders(
  ctx: SyncContext,
  options: RunOptions,
  importer: OrderImporter = { all: importQueued },
): Promise<RunSummary> {
  return runInFrame('orders', ctx, options, (run) => pollOrders(run, importer));
}

/**
 * How a run imports the queued orders and the parked ones due for a retry (ids, queued first;
 * `listed`: the orders whose list record is the whole order, imported without a GET): inline by
 * default; a daemon's poll job hands each to an import job instead.
 */
export interface OrderImporter {
  all(run: PipelineRun, ids: number[], listed: Map<number, ApiOrder>): Promise<void>;
  /**
   * Optional: the importable orders of each page as soon as the scan recorded them (a daemon's
   * poll starts their import jobs while it lists older pages); `all` still gets every queued one.
   */
  found?(run: PipelineRun, ids: number[], listed: Map<number, ApiOrder>, ordersAfter: number): Promise<void>;
}

/**
 * The orders of one list page, recorded as queued: ids oldest first, those listed in full, and at
 * most how many more orders the scan may still find (`ordersAfter`).
 */
export type FoundImporter = (
  ids: number[],
  listed: Map<number, ApiOrder>,
  ordersAfter: number,
) => Promise<void>;

/** The store cursor holding the lowest order id recorded by a scan that has not finished (orderPoll.ts). */
const SCAN_LOW = 'orders.scan.unfinished_below';

/** Pages of a scan recorded in one transaction at most (the first alone, then 2, 4, ...). */
const MAX_PAGES_PER_RECORD = 16;

async function pollOrders(run: PipelineRun, importer: OrderImporter): Promise<void> {
  const { ctx, options, summary, lease } = run;
  // An ERP that takes no platform orders (capabilities.orders.import): nothing to poll for it.
  if (!erpOrderPart(ctx.erp, 'import')) return;
  const repos = orderRepositoriesOf(ctx.store);
  // Before the list is read: feedback touches after this make a listed state stale (echo guard).
  const mark = repos.links.guardMark();
  const { scan, listed, skipped, unreadable } = await discoverOrders(ctx, {
    dryRun: options.dryRun,
    assertLease: () => lease.assertHeld(),
    onRecorded: importer.found && ((ids, inFull, after) => importer.found!(run, ids, inFull, after)),
  });
  summary.read = scan.unseen.length + scan.known.length + unreadable;
  summary.rejected += unreadable;
  countExtra(summary, 'pagesRead', scan.pagesRead);
  countExtra(summary, 'unseen', scan.unseen.length);
  if (unreadable > 0) countExtra(summary, 'unreadable', unreadable);
  if (options.dryRun) {
    previewOrders(ctx, scan, summary);
    return;
  }
  countExtra(summary, 'skipped', skipped);

  await importer.all(run, ordersToImport(ctx), listed);
  summary.extra.parkedTotal = repos.parked.count();
  // The ERP (or the platform) stopped answering: the changes would only ask it again.
  if (summary.error && isSideFailure(summary.error)) return;

  // Changes of imported orders met on the pages just read cost no extra list request (and no
  // GET when the list carries the whole order).
  for (const listed of scan.known) {
    if (!listed.order) continue;
    const current = { status: listed.order.status, paymentStatus: listed.order.payment_status };
    const full = fullOrder(listed.order) ?? undefined;
    countExtra(summary, 'updates', await deliverOrderChanges(ctx, listed.id, current, mark, full));
  }
  if (sweepDue(ctx, options)) {
    const since = new Date(Date.now() - ctx.config.orders.updates.lookbackDays * 86_400_000).toISOString();
    const swept = await sweepOrderChanges(ctx, repos.links.open(since));
    countExtra(summary, 'updates', swept.delivered);
    countExtra(summary, 'sweepPages', swept.pagesRead);
    ctx.store.cursors.set(SWEEP_CURSOR, new Date().toISOString());
  }
}

/**
 * The poll's first half, also usable alone: scans for unseen orders and records each page's as
 * queued (with their lines when the list carries them, for the oversell guard) in one transaction
 * as the page is read, with the scan's low mark (SCAN_LOW, removed once the scan finishes), so that
 * a later scan can trust a page of known orders; `onRecorded` gets the page's importable orders
 * then (a daemon's poll starts their imports while it reads older pages). Orders listed in a status that is not imported
 * are decided at once. A listed record that fails its schema but names its order is queued like
 * the others (its import fetches it in full, and parks it with the reason if that fails too); one
 * without an id is counted in `unreadable` and logged. Then `importPlatformOrder(ctx, id, listed)`
 * for each of `store.orders.seen.queued()`, with the listed record when it is the whole order
 * (`fullOrder`), so the import makes no request of its own.
 */
export async function discoverOrders(
  ctx: SyncContext,
  options: { dryRun?: boolean; assertLease?: () => void; onRecorded?: FoundImporter } = {},
): Promise<{
  scan: ScanResult<ListedRecord>;
  listed: Map<number, ApiOrder>;
  skipped: number;
  unreadable: number;
}> {
  const repos = orderRepositoriesOf(ctx.store);
  const listed = new Map<number, ApiOrder>();
  let unreadable = 0;
  const onUnreadable = (record: UnreadableRecord) => {
    unreadable += 1;
    ctx.logger.warn(record, 'order list record without a usable id: left out');
  };
  const fetchPage = orderListPages(ctx.client, ctx.config.orders.perPage, onUnreadable);
  const importable = new Set(ctx.config.orders.importStatuses);
  let skipped = 0;
  /** Unseen orders of some pages, recorded as queued (or decided) in one transaction with the scan's low mark. */
  const record = async (found: ListedRecord[], pagesLeft: number): Promise<void> => {
    for (const listed of found) {
      if (listed.problem !== null)
        ctx.logger.warn(
          { orderId: listed.id, reason: listed.problem },
          'order list record unreadable; the order is fetched in full',
        );
    }
    if (options.dryRun) return;
    const erpOrigin = erpOriginIds(repos.outgoing, found);
    const toImport: number[] = [];
    ctx.store.transaction(() => {
      repos.seen.enqueue(found.map((o) => ({ id: o.id, createdAt: o.createdAt || null })));
      for (const listed of found) {
        const createdAt = listed.createdAt || null;
        if (erpOrigin.has(listed.id)) {
          // Created by us from the ERP: never imported back, and its units are in the ERP's stock.
          repos.seen.setOutcome(listed.id, 'erp_origin', listed.status, createdAt);
        } else if (listed.status !== null && !importable.has(listed.status)) {
          repos.seen.setOutcome(listed.id, 'skipped', listed.status, createdAt);
          skipped += 1;
        } else {
          const lines = listed.order?.items;
          if (lines) repos.links.replaceLines(listed.id, unitsOf(lines));
          toImport.push(listed.id);
        }
      }
      const low = Math.min(...found.map((o) => o.id), Number(ctx.store.cursors.get(SCAN_LOW) ?? Infinity));
      ctx.store.cursors.set(SCAN_LOW, String(low));
    });
    const inFull = listedInFull(found);
    for (const [id, order] of inFull) listed.set(id, order);
    if (options.onRecorded && toImport.length > 0)
      await options.onRecorded(
        toImport.sort((a, b) => a - b),
        inFull,
        pagesLeft * ctx.config.orders.perPage,
      );
  };
  // The first page alone, so its imports start at once, then twice as many pages each time: each
  // commit rewrites the tables' shared pages (and adds to the write-ahead log), and one a page cost
  // the poll about 3 ms a page more at 10k orders.
  let pending: ListedRecord[] = [];
  let pendingPages = 0;
  let group = 1;
  const gather = async (found: ListedRecord[], pagesLeft: number): Promise<void> => {
    pending.push(...found);
    pendingPages += 1;
    if (pendingPages < group && pagesLeft > 0) return;
    const orders = pending;
    pending = [];
    pendingPages = 0;
    group = Math.min(group * 2, MAX_PAGES_PER_RECORD);
    await record(orders, pagesLeft);
  };
  const unfinished = ctx.store.cursors.get(SCAN_LOW);
  const scan = await scanForUnseenOrders<ListedRecord>(
    (page) => {
      options.assertLease?.();
      return fetchPage(page);
    },
    (ids) => repos.seen.known(ids),
    { unfinishedBelow: unfinished === null ? null : Number(unfinished), onUnseen: gather },
  );
  if (pending.length > 0) await record(pending, 0);
  // Finished: every page down to the block known before was recorded.
  if (!options.dryRun && (unfinished !== null || scan.unseen.length > 0)) ctx.store.cursors.delete(SCAN_LOW);
  return { scan, listed, skipped, unreadable };
}

/** The unseen orders whose list record is the whole order: imported without a GET each. */
function listedInFull(unseen: readonly ListedRecord[]): Map<number, ApiOrder> {
  const out = new Map<number, ApiOrder>();
  for (const listed of unseen) {
    const full = listed.order && fullOrder(listed.order);
    if (full) out.set(listed.id, full);
  }
  return out;
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

/**
 * Imports the orders, a few at once. An order that fails stays queued (or parked) for the next
 * run; once FAILURES_IN_A_ROW orders in a row failed on the ERP's side (or the platform's: not
 * answering, or refusing erp-sync a right), the ERP counts as down and no further order is tried
 * this run. Any order not imported makes the run's error (invariant 14).
 */
async function importQueued(run: PipelineRun, ids: number[], listed: Map<number, ApiOrder>): Promise<void> {
  const { ctx, options, summary, lease } = run;
  const pool = createPool(importConcurrency(ctx.config, ctx.erp));
  const streak = new FailureStreak();
  let first: RunFailure | undefined;
  let tried = 0;
  const tally = (outcome: ImportOutcome) => {
    countExtra(summary, outcome);
    const counts = importItemCounts(outcome);
    summary.applied += counts.applied ?? 0;
    summary.rejected += counts.rejected ?? 0;
  };
  for (const id of ids) {
    if (options.signal?.aborted || streak.down) break;
    await pool.submit(async () => {
      // The pool had no room until an order in flight ended, maybe the one that made the streak.
      if (streak.down) return;
      tried += 1;
      lease.assertHeld();
      summary.sent += 1;
      try {
        tally(await importPlatformOrder(ctx, id, listed.get(id)));
        streak.succeeded();
      } catch (error) {
        if (stopsTheRun(error)) throw error;
        // Stays queued (or parked): the next run tries it again.
        summary.failed += 1;
        const failure = classifyFailure(error);
        first ??= failure;
        streak.failed(failure);
        ctx.logger.warn({ orderId: id, error: describeError(error) }, 'order not imported this run');
      }
      run.progress();
    });
  }
  await pool.drain();
  const notTried = streak.down ? ids.length - tried : 0;
  if (notTried > 0) {
    summary.failed += notTried;
    countExtra(summary, 'notTried', notTried);
  }
  const cause = streak.down ? streak.last : first;
  if (!cause) return;
  const stopped = streak.down ? `; the import stopped after ${FAILURES_IN_A_ROW} failures in a row` : '';
  summary.error = {
    ...cause,
    message: `${summary.failed} of ${ids.length} order(s) not imported, tried again next run${stopped}: ${cause.message}`,
  };
}

/**
 * What a real run would do, without writing: import the unseen orders in an imported status (not
 * ERP-origin ones), the queued ones and the parked ones due, and deliver the changes of imported
 * orders seen on the pages read. Orders in other statuses are only counted (`wouldSkip`).
 */
function previewOrders(ctx: SyncContext, scan: ScanResult<ListedRecord>, summary: RunSummary): void {
  const repos = orderRepositoriesOf(ctx.store);
  const importable = new Set(ctx.config.orders.importStatuses);
  const erpOrigin = erpOriginIds(repos.outgoing, scan.unseen);
  const imports: Record<string, unknown>[] = [];
  let wouldSkip = 0;
  for (const { id, status } of scan.unseen) {
    if (erpOrigin.has(id)) continue;
    if (status === null || importable.has(status)) imports.push({ import: id, status });
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
      link &&
      order &&
      nextOrderChange(
        link,
        withoutErpCaused(link, { status: order.status, paymentStatus: order.payment_status }),
      );
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
