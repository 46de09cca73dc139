import { createHash } from 'node:crypto';
import { ApiError, SchemaError } from '../../api/errors.js';
import type { OrderCreateInput } from '../../api/inputs.js';
import type { ApiOrderSummary } from '../../api/schemas.js';
import { describeError } from '../../domain/errors.js';
import type { OutgoingOrder } from '../../domain/orders.js';
import { describeSource } from '../../domain/records.js';
import { orderRepositoriesOf } from '../../store/createOrderRepositories.js';
import { findOrderBySourceId, resolveCustomer } from './erpOrderLookups.js';
import type { Lease } from '../frame/lease.js';
import { FAILURES_IN_A_ROW, FailureStreak } from '../frame/failureStreak.js';
import { countExtra, isRefusal } from './ordersPipelineRun.js';
import { classifyFailure } from '../frame/classifyFailure.js';
import { runInFrame } from '../frame/runInFrame.js';
import type { RunFailure, RunOptions, RunSummary, SyncContext } from '../frame/types.js';
import { erpOrderPart, requireErpOrderPart } from '../../erp/erpOrderPart.js';

/** Where the ERP's stream of outgoing orders was read up to (store cursor). */
export const ERP_ORDERS_CHECKPOINT = 'erp-orders.outgoing';

/** POSTs of one order per run at most; an order whose outcome stays unknown is looked up next run. */
const MAX_CREATE_ATTEMPTS = 3;

/**
 * ERP -> platform orders, each created once per source_order_id. The intent is stored before the
 * POST and every POST is counted before it is sent; an order with a POST behind it whose result
 * is not recorded (lost answer, killed process) is looked up by source_order_id before any new
 * POST, so a lost reply never becomes a second order.
 */
export function runErpOrders(ctx: SyncContext, options: RunOptions): Promise<RunSummary> {
  return runInFrame('erp-orders', ctx, options, (run) =>
    createErpOrders(run.ctx, options, run.summary, run.lease),
  );
}

async function createErpOrders(
  ctx: SyncContext,
  options: RunOptions,
  summary: RunSummary,
  lease: Lease,
): Promise<void> {
  // An ERP whose orders stay in it (capabilities.orders.outgoing) has none to read.
  const erp = erpOrderPart(ctx.erp, 'outgoing');
  if (!erp) return;
  const repos = orderRepositoriesOf(ctx.store);
  const checkpoint = options.full ? null : ctx.store.cursors.get(ERP_ORDERS_CHECKPOINT);
  // The checkpoint moves over every finished order, and stops before the first one whose
  // creation is still unknown: the next run reads it again.
  let held = options.dryRun;
  const advance = (to: string) => {
    if (!held) ctx.store.cursors.set(ERP_ORDERS_CHECKPOINT, to);
  };
  const streak = new FailureStreak();
  let first: RunFailure | undefined;
  for await (const item of erp.outgoingOrders(checkpoint)) {
    // The platform stopped answering: the rest is read again next run (the checkpoint is held).
    if (options.signal?.aborted || streak.down) break;
    summary.read += 1;
    const row = item.row;
    if (!row.ok) {
      summary.rejected += 1;
      if (!options.dryRun)
        ctx.store.rejects.record({
          pipeline: 'erp-orders',
          key: row.key,
          reason: row.reason,
          source: row.source,
        });
      advance(item.checkpoint);
      continue;
    }
    const order = row.record;
    const hash = contentHash(order);
    const existing = repos.outgoing.get(order.sourceOrderId);
    if (existing?.state === 'created' && existing.platformOrderId !== null) {
      summary.unchanged += 1;
      // Told once: only an order whose recording was interrupted is told again.
      if (!options.dryRun && !existing.erpRecorded) await tellErp(ctx, order, existing.platformOrderId);
      advance(item.checkpoint);
      continue;
    }
    if (existing?.state === 'rejected' && existing.contentHash === hash) {
      summary.unchanged += 1;
      advance(item.checkpoint);
      continue;
    }
    summary.sent += 1;
    if (options.dryRun) {
      if ((summary.preview ??= []).length < 20)
        summary.preview.push({ source_order_id: order.sourceOrderId });
      continue;
    }
    repos.outgoing.recordIntent(order.sourceOrderId, hash);
    const outcome = await createOnce(ctx, order, () => lease.assertHeld());
    if (outcome.kind === 'unknown') {
      summary.failed += 1;
      held = true;
      first ??= outcome.failure;
      streak.failed(outcome.failure);
      continue;
    }
    streak.succeeded();
    if (outcome.kind === 'created') {
      summary.applied += 1;
      countExtra(summary, outcome.found ? 'foundExisting' : 'created');
      ctx.store.rejects.resolve('erp-orders', order.sourceOrderId);
      // A row once unreadable (a file read half-written) was keyed by its source.
      const sourceKey = describeSource(order.source);
      if (sourceKey) ctx.store.rejects.resolve('erp-orders', sourceKey);
      await tellErp(ctx, order, outcome.platformOrderId);
      advance(item.checkpoint);
    } else if (outcome.kind === 'rejected') {
      summary.rejected += 1;
      ctx.store.rejects.record({
        pipeline: 'erp-orders',
        key: order.sourceOrderId,
        reason: outcome.reason,
        source: order.source,
      });
      advance(item.checkpoint);
    }
  }
  const cause = streak.last ?? first;
  const stopped = streak.down ? `; stopped after ${FAILURES_IN_A_ROW} failures in a row` : '';
  if (cause)
    summary.error = {
      ...cause,
      message: `${summary.failed} order(s) not created on the platform, tried again next run${stopped}: ${cause.message}`,
    };
}

type CreateOutcome =
  | { kind: 'created'; platformOrderId: number; found: boolean }
  | { kind: 'rejected'; reason: string }
  /** No answer after every attempt: looked up by source_order_id next run. */
  | { kind: 'unknown'; failure: RunFailure };

async function createOnce(
  ctx: SyncContext,
  order: OutgoingOrder,
  assertLease: () => void,
): Promise<CreateOutcome> {
  const outgoing = orderRepositoriesOf(ctx.store).outgoing;
  let last: unknown;
  for (let attempt = 0; attempt < MAX_CREATE_ATTEMPTS; attempt++) {
    const record = outgoing.get(order.sourceOrderId)!;
    if (record.attempts > 0 || record.state === 'unknown') {
      // A POST may have gone out before (this run or a killed one): look before creating.
      let found: ApiOrderSummary | null;
      try {
        found = await findOrderBySourceId(ctx, order.sourceOrderId);
      } catch (error) {
        // Its record cannot be read either: never a second POST; looked up again next run.
        if (!(error instanceof SchemaError)) throw error;
        outgoing.markUnknown(order.sourceOrderId, describeError(error));
        ctx.logger.warn(
          { sourceOrderId: order.sourceOrderId, error: describeError(error) },
          'the platform order of an ERP order cannot be read; looked up again next run',
        );
        return { kind: 'unknown', failure: classifyFailure(error) };
      }
      if (found !== null) {
        markCreated(ctx, order.sourceOrderId, found);
        return { kind: 'created', platformOrderId: found.id, found: true };
      }
    }
    const input = await toCreateInput(ctx, order);
    assertLease();
    outgoing.countAttempt(order.sourceOrderId);
    try {
      const created = await ctx.client.orders.create(input);
      markCreated(ctx, order.sourceOrderId, created);
      return { kind: 'created', platformOrderId: created.id, found: false };
    } catch (error) {
      if (isRefusal(error)) {
        outgoing.markRejected(order.sourceOrderId, error.message);
        return { kind: 'rejected', reason: error.message };
      }
      // A 2xx answer in a shape that cannot be read created the order all the same: found by
      // source_order_id like a lost answer.
      if (
        error instanceof ApiError &&
        (error.code === 'api_outcome_unknown' || error.retryable || error instanceof SchemaError)
      ) {
        last = error;
        outgoing.markUnknown(order.sourceOrderId, describeError(error));
        ctx.logger.warn(
          { sourceOrderId: order.sourceOrderId, error: describeError(error) },
          'order create outcome unknown; looking it up before trying again',
        );
        continue;
      }
      throw error;
    }
  }
  return { kind: 'unknown', failure: classifyFailure(last) };
}

async function toCreateInput(ctx: SyncContext, order: OutgoingOrder): Promise<OrderCreateInput> {
  const input: OrderCreateInput = {
    source_order_id: order.sourceOrderId,
    items: order.items.map((line) => {
      const item: OrderCreateInput['items'][number] = { sku: line.sku, quantity: line.quantity };
      if (line.unitPrice !== undefined) item.unit_price = line.unitPrice;
      if (line.taxRate !== undefined) item.tax_rate = line.taxRate;
      return item;
    }),
  };
  const customer = await resolveCustomer(ctx, order);
  if (customer.customerId !== undefined) input.customer_id = customer.customerId;
  else if (customer.customer) input.customer = customer.customer;
  if (order.status) input.status = order.status;
  if (order.paymentStatus) input.payment_status = order.paymentStatus;
  if (order.currency) input.currency = order.currency;
  if (order.shippingTotal !== undefined) input.shipping_total = order.shippingTotal;
  if (order.discountTotal !== undefined) input.discount_total = order.discountTotal;
  return input;
}

/**
 * The order exists on the platform: recorded as created, and linked under its source_order_id in
 * the state it was created in, so that later platform-side changes (the merchant cancels it, a
 * payment arrives) reach the ERP as updates like those of an imported order. The ERP has it
 * already: acknowledged at once, no lines for the oversell guard.
 */
function markCreated(ctx: SyncContext, sourceOrderId: string, order: ApiOrderSummary): void {
  const repos = orderRepositoriesOf(ctx.store);
  ctx.store.transaction(() => {
    repos.outgoing.markCreated(sourceOrderId, order.id);
    repos.links.link({
      platformOrderId: order.id,
      erpRef: sourceOrderId,
      number: order.number === undefined || order.number === null ? null : String(order.number),
      status: order.status,
      paymentStatus: order.payment_status,
      platformCreatedAt: order.created_at,
      lines: [],
    });
    repos.links.acknowledge(order.id);
  });
}

async function tellErp(ctx: SyncContext, order: OutgoingOrder, platformOrderId: number): Promise<void> {
  const outgoing = orderRepositoriesOf(ctx.store).outgoing;
  await requireErpOrderPart(ctx.erp, 'outgoing').recordOutgoingOrder(order, platformOrderId);
  outgoing.markErpRecorded(order.sourceOrderId);
}

function contentHash(order: OutgoingOrder): string {
  const { source: _source, ...content } = order;
  return createHash('sha1').update(JSON.stringify(content)).digest('hex').slice(0, 16);
}
