import { NotFoundError } from '../api/errors.js';
import { describeError } from '../domain/errors.js';
import type { AppliedEvent } from '../store/AppliedEventRepository.js';
import type { OrderLink } from '../store/OrderLinkRepository.js';
import type { ParkedOrder } from '../store/ParkedOrderRepository.js';
import type { OutgoingOrderRecord } from '../store/OutgoingOrderRepository.js';
import type { Verdict } from './explainSku.js';
import type { SyncContext } from './types.js';

export interface OrderStory {
  orderId: number;
  platform: {
    read: boolean;
    error?: string;
    found: boolean;
    number?: string | null;
    status?: string;
    paymentStatus?: string;
    createdAt?: string;
    updatedAt?: string | null;
    awb?: unknown;
    invoice?: unknown;
    /** The platform's status history, when its record carries one. */
    history?: unknown;
  };
  /** The ERP's side as the store knows it: the reference the adapter returned, and what it last received. */
  erp: {
    reference: string | null;
    importedAt: string | null;
    acknowledgedAt: string | null;
    deliveredStatus: string | null;
    deliveredPaymentStatus: string | null;
    changesDelivered: number;
    pendingChange: unknown;
    /** Born in the ERP (erp-orders created it on the platform). */
    bornInErp: { sourceOrderId: string; state: string } | null;
  };
  parked: {
    code: string;
    reason: string;
    attempts: number;
    firstParkedAt: string;
    nextAttemptAt: string;
  } | null;
  events: { eventId: string; kind: string; outcome: string; detail: string | null; at: string }[];
  verdict: Verdict;
}

/**
 * The whole story of one platform order, read only: its platform record now (one GET), whether and
 * when it reached the ERP (the reference, what was delivered since), a parked reason and the next
 * retry, the ERP's fulfilment events applied or refused, and a verdict.
 */
export async function explainOrder(ctx: SyncContext, orderId: number): Promise<OrderStory> {
  const { store, config } = ctx;
  const link = store.orders.links.get(orderId);
  const parked = store.orders.parked.get(orderId);
  const outgoing = store.orders.outgoing.byPlatformOrderId(orderId);
  const events = store.orders.events.forOrder(orderId);
  const story: OrderStory = {
    orderId,
    platform: { read: false, found: false },
    erp: erpSide(link, outgoing),
    parked: parked ? parkedSide(parked) : null,
    events: events.map((e) => ({
      eventId: e.eventId,
      kind: e.kind,
      outcome: e.outcome,
      detail: e.detail,
      at: e.appliedAt,
    })),
    verdict: { state: 'in_step', text: '' },
  };
  try {
    const order = await ctx.client.orders.get(orderId);
    const raw = order as Record<string, unknown>;
    story.platform = {
      read: true,
      found: true,
      number: order.number === null || order.number === undefined ? null : String(order.number),
      status: order.status,
      paymentStatus: order.payment_status,
      createdAt: order.created_at,
      updatedAt: order.updated_at ?? null,
      awb: order.awb ?? null,
      invoice: order.invoice ?? null,
      ...(raw.status_history !== undefined
        ? { history: raw.status_history }
        : raw.history !== undefined
          ? { history: raw.history }
          : {}),
    };
  } catch (error) {
    if (error instanceof NotFoundError) story.platform = { read: true, found: false };
    else story.platform.error = describeError(error);
  }
  story.verdict = verdictOf(story, events, config.orders.importStatuses);
  return story;
}

function erpSide(link: OrderLink | undefined, outgoing: OutgoingOrderRecord | undefined): OrderStory['erp'] {
  return {
    reference: link?.erpRef ?? null,
    importedAt: link?.importedAt ?? null,
    acknowledgedAt: link?.acknowledgedAt ?? null,
    deliveredStatus: link?.status ?? null,
    deliveredPaymentStatus: link?.paymentStatus ?? null,
    changesDelivered: link?.changeSeq ?? 0,
    pendingChange: link?.pendingChange ?? null,
    bornInErp: outgoing ? { sourceOrderId: outgoing.sourceOrderId, state: outgoing.state } : null,
  };
}

function parkedSide(parked: ParkedOrder): NonNullable<OrderStory['parked']> {
  return {
    code: parked.code,
    reason: parked.reason,
    attempts: parked.attempts,
    firstParkedAt: parked.firstParkedAt,
    nextAttemptAt: parked.nextAttemptAt,
  };
}

function verdictOf(story: OrderStory, events: AppliedEvent[], importStatuses: readonly string[]): Verdict {
  const { platform, erp, parked } = story;
  const refused = events.filter((e) => e.outcome === 'rejected');
  if (platform.read && !platform.found)
    return erp.reference
      ? {
          state: 'blocked',
          text: `gone from the platform, but the ERP has it as ${erp.reference}: check it in the ERP`,
        }
      : { state: 'unknown', text: `the platform does not know order ${story.orderId}` };
  if (parked)
    return {
      state: 'blocked',
      text: `parked: ${parked.reason} (attempt ${parked.attempts}, next retry ${parked.nextAttemptAt}); fix the cause in the ERP, or retry now with \`erp-sync orders retry ${story.orderId}\``,
    };
  if (refused.length)
    return {
      state: 'blocked',
      text: `${refused.length} ERP event(s) refused: ${refused.map((e) => `${e.kind} ${e.eventId}: ${e.detail ?? '?'}`).join('; ')}; correct them in the ERP`,
    };
  if (erp.bornInErp)
    return {
      state: 'in_step',
      text: `born in the ERP as ${erp.bornInErp.sourceOrderId} (${erp.bornInErp.state})`,
    };
  if (!platform.read) {
    const known = erp.reference
      ? `in the ERP as ${erp.reference}`
      : 'not in the ERP as far as the store knows';
    return { state: 'unknown', text: `the platform could not be read (${platform.error ?? '?'}); ${known}` };
  }
  if (!erp.reference) {
    if (platform.status && importStatuses.includes(platform.status))
      return { state: 'pending', text: 'will be imported into the ERP at the next orders run' };
    return {
      state: 'not_in_erp',
      text: `not imported: its status ${platform.status ?? '?'} is not one of orders.importStatuses`,
    };
  }
  if (erp.pendingChange)
    return {
      state: 'pending',
      text: 'a change is being delivered to the ERP: the next orders run finishes it',
    };
  if (platform.status !== erp.deliveredStatus || platform.paymentStatus !== erp.deliveredPaymentStatus)
    return {
      state: 'pending',
      text: `the platform's ${platform.status}/${platform.paymentStatus} differs from the ${erp.deliveredStatus}/${erp.deliveredPaymentStatus} the ERP last received: the next orders run delivers it`,
    };
  return { state: 'in_step', text: `in step: in the ERP as ${erp.reference} since ${erp.importedAt ?? '?'}` };
}
