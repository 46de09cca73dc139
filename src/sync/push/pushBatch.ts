import type { ApiClient } from '../../api/createApiClient.js';
import type { BulkResult } from '../../api/envelope.js';
import { ApiValidationError, ClientValidationError, PayloadTooLargeError } from '../../api/errors.js';
import type { BulkPriceItem, BulkStockItem } from '../../api/inputs.js';
import { itemKeyString, type ItemKey, type RecordSource, type Reject } from '../../domain/records.js';
import type { FingerprintEntry, FingerprintPipeline } from '../../store/index.js';
import { inFlightFingerprint, refusedFingerprint } from './fingerprint.js';
import type { PushWire } from './pushKind.js';
import { PUSH_KINDS } from './pushKinds.js';
import type { Lease } from '../frame/lease.js';
import { classifyFailure, stopsTheRun } from '../frame/classifyFailure.js';
import { reasonsByIndex, sendSplitting, type Refusal } from './splitOnRefusal.js';
import { bulkSizing } from './bulkSize.js';
import { sizeRefusal } from './sizeRefusal.js';
import type { RunFailure, SyncContext } from '../frame/types.js';

export const NOT_ON_PLATFORM = 'not on the platform';

/** One item ready to push: its key, the fingerprint of the value, and the request item. */
export interface PushItem<W = BulkStockItem | BulkPriceItem> {
  key: string;
  /** The product SKU (the key without the variant). */
  sku: string;
  /** Where the ERP row is (file and line), for the reject when the platform refuses or lacks it. */
  source?: RecordSource;
  hash: string;
  wire: W;
}

/**
 * One bulk request's worth of items, as a scan produced it: plain JSON, so that a queue can carry
 * it to a push job in another process. `generation` is the scan's: a batch never overwrites what a
 * later scan had confirmed.
 */
export interface PushBatch<W = BulkStockItem | BulkPriceItem> {
  pipeline: FingerprintPipeline;
  generation: number;
  items: PushItem<W>[];
}

/** What one batch came to; `failed` items are unconfirmed (sent again next run). */
export interface BatchOutcome {
  /** Items skipped because a later scan already confirmed a value for them. */
  superseded: number;
  applied: number;
  notFound: number;
  rejected: number;
  failed: number;
  /** Keys this batch recorded a reject for (refused, or not on the platform). */
  rejectedKeys: string[];
  /** Why the batch was not confirmed (with `failed`). */
  error?: RunFailure;
}

/** A request refused as a whole for its content: split it to find the offenders. */
export function classifyRefusal(error: unknown): Refusal | null {
  const size = sizeRefusal(error);
  if (error instanceof ApiValidationError || error instanceof ClientValidationError) {
    return {
      message: `refused: ${error.message}`,
      byIndex: reasonsByIndex(error.fieldErrors),
      ...(size ? { tooLarge: true, ...size } : {}),
    };
  }
  if (error instanceof PayloadTooLargeError) return { message: `refused: ${error.message}`, tooLarge: true };
  return null;
}

/**
 * Which sent items the platform did not find. It may echo an item as sent (SKU and variant SKU) or
 * by its SKU alone: then every item of that SKU counts as not found, never as acknowledged.
 */
export function notFoundMatcher(refs: ItemKey[]): (item: { key: string; sku: string }) => boolean {
  const keys = new Set(refs.map(itemKeyString));
  const skus = new Set(refs.filter((ref) => !ref.variantSku).map((ref) => ref.sku));
  return (item) => keys.has(item.key) || skus.has(item.sku);
}

/** The bulk endpoint of a push pipeline. */
export function bulkSender(
  pipeline: FingerprintPipeline,
  client: ApiClient,
): (wires: unknown[]) => Promise<BulkResult> {
  const kind = PUSH_KINDS[pipeline];
  return (wires) => kind.send(client, wires as PushWire[]);
}

/** A batch's items that went in flight, and the store's row of the batch (null: none did). */
export interface InFlight<W> {
  items: PushItem<W>[];
  id: number | null;
}

/**
 * Before a batch goes out, in one transaction: its items that no later scan has written go in
 * flight (one row for the batch, its keys with in-flight markers), so that if its answer is lost
 * (dropped connection, timeout, a 502 after the upstream applied it, the process killed) the items
 * stay unknown and the next run sends them again whatever the ERP then says. The record stage
 * replaces the row with what the platform answered. An item a later scan has written or has in
 * flight (a higher generation) is superseded, the guard behind the lease: left out, not sent.
 */
export function markInFlight<W>(ctx: SyncContext, batch: PushBatch<W>, lease?: Lease): InFlight<W> {
  const { id, superseded } = ctx.store.fingerprints.markInFlight(
    batch.pipeline,
    batch.generation,
    batch.items.map((item) => [item.key, inFlightFingerprint(item.hash)] as const),
    // The lease's renewal right before the request is the fence (it fails if another run took
    // over): in the mark's transaction, one commit per batch fewer.
    lease ? { first: () => lease.assertHeld() } : {},
  );
  return {
    id,
    items: superseded.size ? batch.items.filter((item) => !superseded.has(item.key)) : batch.items,
  };
}

/** The platform's answers to one batch, item by item. */
export interface SendResult<W> {
  applied: PushItem<W>[];
  missing: PushItem<W>[];
  refused: { item: PushItem<W>; reason: string }[];
}

/** The send stage: one bulk request (split on a refusal), its answers matched back to the items. */
export async function sendPushItems<W>(
  ctx: SyncContext,
  pipeline: FingerprintPipeline,
  items: PushItem<W>[],
): Promise<SendResult<W>> {
  const send = bulkSender(pipeline, ctx.client);
  const sizing = bulkSizing(ctx, pipeline);
  const result = await sendSplitting(items, {
    send: (part) => send(part.map((item) => item.wire)),
    classify: classifyRefusal,
    sizing,
  });
  const out: SendResult<W> = { applied: [], missing: [], refused: result.rejected };
  for (const { items: part, response } of result.accepted) {
    sizing.accepted(part.length);
    const { notFound } = response as BulkResult;
    // The usual answer: every item found (no per-item matching).
    if (notFound.length === 0) {
      out.applied.push(...part);
      continue;
    }
    const isMissing = notFoundMatcher(
      notFound.map((ref) => ({ sku: ref.sku ?? '', variantSku: ref.variant_sku })),
    );
    // Indexed, as in batches(): called once per batch, this function is seldom optimised.
    for (let at = 0; at < part.length; at++) {
      const item = part[at]!;
      (isMissing(item) ? out.missing : out.applied).push(item);
    }
  }
  return out;
}

/**
 * The record stage, one transaction: acknowledged values get their fingerprint, refused ones a
 * refused fingerprint and a reject, missing ones the not-on-the-platform mark and a reject; every
 * write with the batch's generation (it never overwrites a later scan's); the batch's in-flight
 * row (`inFlight`, from markInFlight) ends.
 */
export function recordPushResult<W>(
  ctx: SyncContext,
  batch: Pick<PushBatch<W>, 'pipeline' | 'generation'>,
  result: SendResult<W>,
  inFlight: number | null,
): Reject[] {
  const { pipeline, generation } = batch;
  const applied: FingerprintEntry[] = result.applied.map((item) => ({
    key: item.key,
    hash: item.hash,
    generation,
  }));
  const refused: FingerprintEntry[] = result.refused.map(({ item }) => ({
    key: item.key,
    hash: refusedFingerprint(item.hash),
    generation,
  }));
  const rejects: Reject[] = [
    ...result.refused.map(({ item, reason }) => ({ pipeline, key: item.key, reason, source: item.source })),
    ...result.missing.map(({ key, source }) => ({ pipeline, key, reason: NOT_ON_PLATFORM, source })),
  ];
  const { store } = ctx;
  store.transaction(() => {
    store.fingerprints.putMany(pipeline, applied);
    store.fingerprints.putMany(pipeline, refused);
    if (result.missing.length)
      store.fingerprints.markMissing(
        pipeline,
        result.missing.map((item) => item.key),
        generation,
      );
    if (rejects.length) store.rejects.recordMany(rejects);
    if (inFlight !== null) store.fingerprints.settle(inFlight);
  });
  return rejects;
}

/**
 * Mark in flight, send and record ONE batch: what a push job does with a batch a scan produced (also in another
 * process, later), and what run-once does inline. A transient failure leaves the batch unconfirmed
 * (`failed`, sent again next run); a lost lease or a fatal error is thrown.
 */
export async function pushBatch<W>(
  ctx: SyncContext,
  batch: PushBatch<W>,
  options: { lease?: Lease } = {},
): Promise<BatchOutcome> {
  const outcome: BatchOutcome = {
    superseded: 0,
    applied: 0,
    notFound: 0,
    rejected: 0,
    failed: 0,
    rejectedKeys: [],
  };
  const { items: fresh, id: inFlight } = markInFlight(ctx, batch, options.lease);
  outcome.superseded = batch.items.length - fresh.length;
  if (fresh.length === 0) return outcome;
  const log = ctx.logger.child({ pipeline: batch.pipeline });
  try {
    const result = await sendPushItems(ctx, batch.pipeline, fresh);
    const rejects = recordPushResult(ctx, batch, result, inFlight);
    outcome.applied = result.applied.length;
    outcome.notFound = result.missing.length;
    outcome.rejected = result.refused.length;
    outcome.rejectedKeys = rejects.map((reject) => reject.key);
    if (result.missing.length)
      log.warn(
        { count: result.missing.length, first: result.missing.slice(0, 5).map((item) => item.key) },
        `SKUs ${NOT_ON_PLATFORM}`,
      );
  } catch (error) {
    if (stopsTheRun(error)) throw error;
    outcome.failed = fresh.length;
    outcome.error = classifyFailure(error);
    log.warn(
      { err: `${outcome.error.code}: ${outcome.error.message}`, items: fresh.length },
      'batch not confirmed; it is sent again next run',
    );
  }
  return outcome;
}
