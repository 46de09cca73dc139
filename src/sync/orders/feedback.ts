import { SchemaError } from '../../api/errors.js';
import type { FeedbackResult, OrderEvent } from '../../domain/orders.js';
import { describeSource, type RecordSource } from '../../domain/records.js';
import { orderRepositoriesOf } from '../../store/createOrderRepositories.js';
import type { ErpIntent } from '../../store/OrderLinkRepository.js';
import { feedbackActionFor, type FeedbackAction } from './feedbackActions.js';
import type { Lease } from '../frame/lease.js';
import { afterRefusedMove, updateOrder, type EventOutcome } from './lifecycleWalk.js';
import { countExtra, isRefusal } from './ordersPipelineRun.js';
import { runInFrame } from '../frame/runInFrame.js';
import type { RunOptions, RunSummary, SyncContext } from '../frame/types.js';
import { erpOrderPart, requireErpOrderPart } from '../../erp/erpOrderPart.js';

export const FEEDBACK_CHECKPOINT = 'feedback.events';

/**
 * ERP -> platform fulfilment: events from the adapter's checkpoint become status changes, AWBs
 * and invoices. Each event is applied at most once in effect: the platform's actions are
 * idempotent, and the event id is stored with the checkpoint once it is done, so a replay skips
 * it. A refusal (422, 404) is a reject and the checkpoint moves on; a transient failure stops
 * the run at that event, which is tried again next run.
 */
export function runFeedback(ctx: SyncContext, options: RunOptions): Promise<RunSummary> {
  return runInFrame('feedback', ctx, options, (run) => applyEvents(run.ctx, options, run.summary, run.lease));
}

async function applyEvents(
  ctx: SyncContext,
  options: RunOptions,
  summary: RunSummary,
  lease: Lease,
): Promise<void> {
  // An ERP that reports no fulfilment (capabilities.orders.events) has nothing to send back.
  const erp = erpOrderPart(ctx.erp, 'events');
  if (!erp) return;
  const repos = orderRepositoriesOf(ctx.store);
  await retryWaiting(ctx, options, summary, lease);
  const checkpoint = ctx.store.cursors.get(FEEDBACK_CHECKPOINT);
  for await (const item of erp.orderEvents(options.full ? null : checkpoint)) {
    if (options.signal?.aborted) break;
    summary.read += 1;
    const advance = () => {
      if (!options.dryRun) ctx.store.cursors.set(FEEDBACK_CHECKPOINT, item.checkpoint);
    };
    const row = item.row;
    if (!row.ok) {
      summary.rejected += 1;
      if (!options.dryRun) {
        ctx.store.transaction(() => {
          ctx.store.rejects.record({
            pipeline: 'feedback',
            key: row.key,
            reason: row.reason,
            source: row.source,
          });
          advance();
        });
      }
      continue;
    }
    const event = row.record;
    if (repos.events.get(event.eventId)) {
      summary.unchanged += 1;
      advance();
      continue;
    }
    await handleEvent(ctx, options, summary, lease, event, row.source, advance);
  }
}

/**
 * Events naming an ERP reference nothing matched yet (an ERP order whose `erp-orders` run comes
 * after this one, an order not imported yet): kept in the store and tried again at the start of
 * every run, so an event is never lost to the order it names arriving later.
 */
async function retryWaiting(
  ctx: SyncContext,
  options: RunOptions,
  summary: RunSummary,
  lease: Lease,
): Promise<void> {
  if (options.dryRun) return;
  for (const waiting of orderRepositoriesOf(ctx.store).events.waiting()) {
    if (options.signal?.aborted) return;
    if (resolveOrderId(ctx, waiting.event) === null) {
      countExtra(summary, 'waiting');
      continue;
    }
    await handleEvent(ctx, options, summary, lease, waiting.event, waiting.source, () => {});
  }
}

/** One event not handled before: resolved to its order, applied, and recorded with `advance`. */
async function handleEvent(
  ctx: SyncContext,
  options: RunOptions,
  summary: RunSummary,
  lease: Lease,
  event: OrderEvent,
  source: RecordSource,
  advance: () => void,
): Promise<void> {
  const repos = orderRepositoriesOf(ctx.store);
  const orderId = resolveOrderId(ctx, event);
  const key = `${event.orderId ?? event.erpRef}:${event.kind}`;
  if (orderId === null) {
    summary.rejected += 1;
    if (!options.dryRun) {
      ctx.store.transaction(() => {
        ctx.store.rejects.record({
          pipeline: 'feedback',
          key,
          reason: `unknown erp_ref "${event.erpRef}" (kept, applied once an order has it)`,
          source,
        });
        repos.events.wait(event, source);
        advance();
      });
    }
    return;
  }
  const action = feedbackActionFor(event, ctx.config.orders.defaultCourier);
  summary.sent += 1;
  if (options.dryRun) {
    if ((summary.preview ??= []).length < 20) summary.preview.push({ orderId, ...action });
    return;
  }
  lease.assertHeld();
  // Echo guard: recorded before the platform call, so an orders poll reading the order meanwhile
  // (this process or another) knows the states on the way are the ERP's own. It stays while the
  // event is unfinished (a transient failure: the next run goes on with it).
  const intent = intentOf(action, event);
  const before = repos.links.get(orderId)?.status;
  if (intent) repos.links.beginErpChange(orderId, intent);
  let outcome: EventOutcome;
  try {
    outcome = await applyEvent(ctx, action, event, orderId);
  } catch (error) {
    // A 2xx answer in a shape that cannot be read: this event is a reject, the others go on.
    if (!(error instanceof SchemaError)) throw error;
    outcome = { kind: 'refused', reason: `the platform's answer cannot be read: ${error.message}` };
  }
  if (outcome.kind === 'refused') {
    // The platform refused this event for good (422, 404), or answered it unreadably: a reject
    // with its reason, not retried.
    const { reason } = outcome;
    summary.rejected += 1;
    ctx.store.transaction(() => {
      ctx.store.rejects.record({ pipeline: 'feedback', key, reason, source });
      repos.events.record({
        eventId: event.eventId,
        platformOrderId: orderId,
        kind: event.kind,
        outcome: 'rejected',
        detail: reason,
      });
      // Where a walk left the order before the refusal is the ERP's doing too: not echoed.
      if (intent) repos.links.endErpChange(orderId, { status: outcome.reached }, before);
      advance();
    });
    ctx.logger.warn({ orderId, event: event.kind, reason }, 'feedback refused by the platform');
    return;
  }
  if (outcome.how !== 'direct') {
    // A status move the order has already made (a redo after a crash, or the merchant was
    // quicker), or one reached by walking the lifecycle: applied, not a reject.
    countExtra(summary, outcome.how);
    if (outcome.how === 'walked') countExtra(summary, 'walkSteps', outcome.steps);
  }
  const { result, delivered } = outcome;
  await requireErpOrderPart(ctx.erp, 'events').recordFeedback(result);
  ctx.store.transaction(() => {
    repos.events.record({
      eventId: event.eventId,
      platformOrderId: orderId,
      kind: event.kind,
      outcome: 'applied',
      detail: resultDetail(result),
    });
    repos.links.acknowledge(orderId);
    // The ERP caused this state: it must not come back to it as a platform-side change.
    if (intent) repos.links.endErpChange(orderId, delivered);
    ctx.store.rejects.resolve('feedback', key);
    // A line once unreadable (broken quoting), applied after the ERP repaired the file.
    const sourceKey = describeSource(source);
    if (sourceKey) ctx.store.rejects.resolve('feedback', sourceKey);
    advance();
  });
  summary.applied += 1;
  countExtra(summary, action.type);
}

/** The state an event's status or payment move asks the platform for; null for AWB and invoice. */
function intentOf(action: FeedbackAction, event: OrderEvent): ErpIntent | null {
  if (action.type !== 'update') return null;
  const intent: ErpIntent = { eventId: event.eventId };
  if (action.input.status) intent.status = action.input.status;
  if (action.input.payment_status) intent.paymentStatus = action.input.payment_status;
  return intent;
}

/** The event's action on the platform; a refused status move is decided from the order's state. */
async function applyEvent(
  ctx: SyncContext,
  action: FeedbackAction,
  event: OrderEvent,
  orderId: number,
): Promise<EventOutcome> {
  try {
    const result = await apply(ctx, action, event, orderId);
    const delivered =
      action.type === 'update'
        ? { status: action.input.status, paymentStatus: action.input.payment_status }
        : {};
    return { kind: 'applied', how: 'direct', steps: 0, result, delivered };
  } catch (error) {
    if (!isRefusal(error)) throw error;
    return (
      (await afterRefusedMove(ctx, action, event, orderId, error)) ?? {
        kind: 'refused',
        reason: error.message,
      }
    );
  }
}

function resolveOrderId(ctx: SyncContext, event: OrderEvent): number | null {
  if (event.orderId !== undefined) return event.orderId;
  if (!event.erpRef) return null;
  const repos = orderRepositoriesOf(ctx.store);
  return (
    repos.links.byErpRef(event.erpRef)?.platformOrderId ??
    repos.outgoing.get(event.erpRef)?.platformOrderId ??
    null
  );
}

async function apply(
  ctx: SyncContext,
  action: FeedbackAction,
  event: OrderEvent,
  orderId: number,
): Promise<FeedbackResult> {
  const base: FeedbackResult = { eventId: event.eventId, orderId, kind: event.kind };
  if (event.erpRef) base.erpRef = event.erpRef;
  if (action.type === 'update') {
    const status = await updateOrder(ctx, orderId, action.input);
    return status ? { ...base, status } : base;
  }
  if (action.type === 'awb') {
    const awb = await ctx.client.orders.createAwb(orderId, action.input);
    return {
      ...base,
      awb: {
        number: awb.number,
        courier: awb.courier ?? action.input.courier ?? '',
        codAmount: awb.cod_amount ?? null,
      },
    };
  }
  const invoice = await ctx.client.orders.createInvoice(orderId);
  return {
    ...base,
    invoice: { series: invoice.series ?? '', number: invoice.number, total: invoice.total ?? null },
  };
}

function resultDetail(result: FeedbackResult): string | null {
  if (result.awb) return `awb ${result.awb.number}`;
  if (result.invoice) return `invoice ${result.invoice.series}${result.invoice.number}`;
  return result.status ? `status ${result.status}` : null;
}
