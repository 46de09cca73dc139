import { NotFoundError } from '../api/errors.js';
import { describeError } from '../domain/errors.js';
import type { ErpOrderLocation } from '../erp/ErpOrderLocation.js';
import type { AppliedEvent } from '../store/AppliedEventRepository.js';
import type { OrderLink } from '../store/OrderLinkRepository.js';
import type { ParkedOrder } from '../store/ParkedOrderRepository.js';
import type { OutgoingOrderRecord } from '../store/OutgoingOrderRepository.js';
import type { Verdict } from './explainSku.js';
import type { SyncContext } from '../sync/frame/types.js';

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
  /**
   * The ERP itself, asked where the order is now (the adapter's `locateOrder`). Not asked
   * (`asked: false`) for an order born in the ERP, or when the adapter cannot look orders up.
   */
  erpNow: { asked: boolean; read: boolean; error?: string; found: boolean; location?: ErpOrderLocation };
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
 * when it reached the ERP (the reference, what was delivered since, and where the ERP holds it
 * now), a parked reason and the next retry, the ERP's fulfilment events applied or refused, and a
 * verdict.
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
    erpNow: { asked: false, read: false, found: false },
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
  const erpNow = outgoing ? undefined : locateInErp(ctx, orderId);
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
  if (erpNow) story.erpNow = await erpNow;
  story.verdict = verdictOf(story, events, config.orders.importStatuses);
  return story;
}

/** Where the ERP holds it, and the ERP's own reference when it differs from the one the store keeps. */
function foundAs(location: ErpOrderLocation, reference: string): string {
  return location.erpRef === reference ? location.place : `${location.place} as ${location.erpRef}`;
}

/** Never throws: an ERP that cannot be asked is said in the story, beside the store's and platform's parts. */
async function locateInErp(ctx: SyncContext, orderId: number): Promise<OrderStory['erpNow']> {
  if (!ctx.erp.locateOrder) return { asked: false, read: false, found: false };
  try {
    const location = await ctx.erp.locateOrder(orderId);
    return location
      ? { asked: true, read: true, found: true, location }
      : { asked: true, read: true, found: false };
  } catch (error) {
    return { asked: true, read: false, found: false, error: describeError(error) };
  }
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
  const { platform, erp, erpNow, parked } = story;
  const refused = events.filter((e) => e.outcome === 'rejected');
  const where = erpNow.location ? `${erpNow.location.erpRef} (${erpNow.location.place})` : null;
  if (platform.read && !platform.found) {
    if (where)
      return {
        state: 'blocked',
        text: `gone from the platform, but the ERP has it as ${where}: check it in the ERP`,
      };
    if (erp.reference)
      return erpNow.read
        ? {
            state: 'blocked',
            text: `gone from the platform, and the ERP no longer has ${erp.reference} either: only the store's link is left`,
          }
        : {
            state: 'blocked',
            text: `gone from the platform, but the ERP has it as ${erp.reference}: check it in the ERP`,
          };
    return { state: 'unknown', text: `the platform does not know order ${story.orderId}` };
  }
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
    const known = where
      ? `the ERP has it as ${where}`
      : erpNow.read
        ? 'the ERP does not have it'
        : erp.reference
          ? `in the ERP as ${erp.reference} as far as the store knows`
          : 'not in the ERP as far as the store knows';
    return { state: 'unknown', text: `the platform could not be read (${platform.error ?? '?'}); ${known}` };
  }
  const importable = platform.status !== undefined && importStatuses.includes(platform.status);
  if (!erp.reference) {
    if (where)
      return importable
        ? {
            state: 'pending',
            text: `the ERP already has it as ${where}, but the store has no link yet: the next orders run finds that import (it is never made twice) and links it`,
          }
        : {
            state: 'blocked',
            text: `the ERP has it as ${where}, but erp-sync never linked it and its status ${platform.status ?? '?'} is not one of orders.importStatuses: check the order in the ERP`,
          };
    if (importable && erpNow.asked && !erpNow.read)
      return {
        state: 'unknown',
        text: `the ERP could not be read (${erpNow.error ?? '?'}), and the store has no link: unknown whether the ERP already has it; check that the ERP can be reached (\`erp-sync check\`): once it can, the next orders run imports it, or links the import it finds there (it is never made twice)`,
      };
    if (importable) return { state: 'pending', text: 'will be imported into the ERP at the next orders run' };
    return {
      state: 'not_in_erp',
      text: `not imported: its status ${platform.status ?? '?'} is not one of orders.importStatuses`,
    };
  }
  if (erpNow.read && !erpNow.found)
    return {
      state: 'blocked',
      text: `the store says it was imported as ${erp.reference} at ${erp.importedAt ?? '?'}, but the ERP has no such order: it was removed there or moved where erp-sync does not look; erp-sync will not import a linked order again, so find it or enter it in the ERP`,
    };
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
  const since = `in the ERP as ${erp.reference} since ${erp.importedAt ?? '?'}`;
  if (erpNow.asked && !erpNow.read)
    return {
      state: 'unknown',
      text: `the ERP could not be read (${erpNow.error ?? '?'}); the store says ${since}`,
    };
  return {
    state: 'in_step',
    text: `in step: ${since}${erpNow.location ? `; found there: ${foundAs(erpNow.location, erp.reference)}` : ''}`,
  };
}
