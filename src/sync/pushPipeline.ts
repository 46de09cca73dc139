import { performance } from 'node:perf_hooks';
import type { BulkResult } from '../api/envelope.js';
import { ApiValidationError, ClientValidationError, PayloadTooLargeError } from '../api/errors.js';
import { describeError, ErpSyncError, isErpSyncError } from '../domain/errors.js';
import { itemKeyString, type ItemKey, type RecordSource, type Reject } from '../domain/records.js';
import type { ErpRead } from '../erp/ErpRead.js';
import type { FingerprintEntry, FingerprintPipeline } from '../store/index.js';
import { batches } from './batches.js';
import { refusedFingerprint } from './fingerprint.js';
import { acquireLease, LeaseLostError, type Lease } from './lease.js';
import { createPool } from './pool.js';
import { reasonsByIndex, sendSplitting, type Refusal } from './splitOnRefusal.js';
import { emptySummary, failRun, finishRun } from './summary.js';
import type { RunOptions, RunSummary, SyncContext } from './types.js';

export const NOT_ON_PLATFORM = 'not on the platform';
const PREVIEW_ITEMS = 20;

/** One item ready to push: its key, the fingerprint of the value, and the request item. */
export interface PushItem<W> {
  key: string;
  /** The product SKU (the key without the variant). */
  sku: string;
  /** Where the ERP row is (file and line), for the reject when the platform refuses or lacks it. */
  source?: RecordSource;
  hash: string;
  wire: W;
}

/** What differs between the stock and the prices pipelines; the engine does the rest. */
export interface PushSpec<R extends ItemKey, W> {
  pipeline: FingerprintPipeline;
  rows: () => ErpRead<R>;
  /** Why a record cannot be sent (spec limits), or null. */
  validate: (record: R) => string | null;
  /** One item per record, in order, for one chunk of rows (the stock pipeline asks for reservations here). */
  prepare: (records: R[]) => Promise<PushItem<W>[]>;
  /** One bulk request; its result names the items the platform did not find, as it echoed them. */
  send: (wires: W[]) => Promise<BulkResult>;
}

/** A request refused as a whole for its content: split it to find the offenders. */
export function classifyRefusal(error: unknown): Refusal | null {
  if (error instanceof ApiValidationError || error instanceof ClientValidationError) {
    return { message: `refused: ${error.message}`, byIndex: reasonsByIndex(error.fieldErrors) };
  }
  if (error instanceof PayloadTooLargeError) return { message: `refused: ${error.message}` };
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

function stopsTheRun(error: unknown): boolean {
  return error instanceof LeaseLostError || (isErpSyncError(error) && error.fatal);
}

/**
 * read -> validate -> diff against fingerprints -> batches -> bounded concurrent bulk requests
 * -> record what the platform acknowledged. Fingerprints are written only for confirmed items
 * (acknowledge before forgetting), with this scan's generation (never overwriting a later one).
 */
export async function runPush<R extends ItemKey, W>(
  ctx: SyncContext,
  options: RunOptions,
  spec: PushSpec<R, W>,
): Promise<RunSummary> {
  const { pipeline } = spec;
  const { store, config } = ctx;
  const started = performance.now();
  const summary = emptySummary(pipeline, options);
  summary.extra = { knownMissing: 0, superseded: 0, batches: 0 };
  if (options.dryRun) summary.preview = [];
  const requestsBefore = { ...ctx.requests };
  const log = ctx.logger.child({ pipeline });
  const batchSize = config.sync.batchSize;
  const errors: string[] = [];
  let lease: Lease | undefined;
  let runId: number | undefined;
  let generation = 0;
  const progress = (done = false): void =>
    ctx.onProgress?.({ pipeline, read: summary.read, sent: summary.sent, applied: summary.applied, done });

  const sendBatch = async (batch: PushItem<W>[]): Promise<void> => {
    lease?.assertHeld();
    // Second guard behind the lease: never send what a later scan already had confirmed.
    const current = store.fingerprints.getMany(
      pipeline,
      batch.map((item) => item.key),
    );
    const fresh = batch.filter((item) => (current.get(item.key)?.generation ?? 0) <= generation);
    summary.extra.superseded! += batch.length - fresh.length;
    if (fresh.length === 0) return;
    try {
      const result = await sendSplitting(fresh, {
        send: (items) => spec.send(items.map((item) => item.wire)),
        classify: classifyRefusal,
      });
      const applied: FingerprintEntry[] = [];
      const missing: PushItem<W>[] = [];
      for (const { items, response } of result.accepted) {
        const isMissing = notFoundMatcher(
          (response as BulkResult).notFound.map((ref) => ({
            sku: ref.sku ?? '',
            variantSku: ref.variant_sku,
          })),
        );
        for (const item of items) {
          if (isMissing(item)) missing.push(item);
          else applied.push({ key: item.key, hash: item.hash, generation });
        }
      }
      const refused = result.rejected.map(({ item }) => ({
        key: item.key,
        hash: refusedFingerprint(item.hash),
        generation,
      }));
      const rejects: Reject[] = [
        ...result.rejected.map(({ item, reason }) => ({
          pipeline,
          key: item.key,
          reason,
          source: item.source,
        })),
        ...missing.map(({ key, source }) => ({ pipeline, key, reason: NOT_ON_PLATFORM, source })),
      ];
      const missingKeys = missing.map((item) => item.key);
      store.transaction(() => {
        store.fingerprints.putMany(pipeline, applied);
        store.fingerprints.putMany(pipeline, refused);
        if (missing.length) store.fingerprints.markMissing(pipeline, missingKeys, generation);
        if (rejects.length) store.rejects.recordMany(rejects);
      });
      for (const reject of rejects) stillRejected.add(reject.key);
      summary.applied += applied.length;
      summary.notFound += missing.length;
      summary.rejected += result.rejected.length;
      if (missing.length)
        log.warn({ count: missing.length, first: missingKeys.slice(0, 5) }, `SKUs ${NOT_ON_PLATFORM}`);
      progress();
    } catch (error) {
      if (stopsTheRun(error)) throw error;
      summary.failed += fresh.length;
      errors.push(describeError(error));
      log.warn(
        { err: describeError(error), items: fresh.length },
        'batch not confirmed; it is sent again next run',
      );
    }
  };

  // Keys with a reject this run (or kept from an earlier one: known missing, refused and unchanged).
  // After a complete run every other open reject of the pipeline is over: fixed or gone from the ERP.
  const stillRejected = new Set<string>();
  let openRejects = new Set<string>();
  let read: ErpRead<R> | undefined;
  const pool = createPool(config.sync.concurrency);
  try {
    if (!options.dryRun) {
      lease = await acquireLease(store, `sync:${pipeline}`, {
        ttlMs: config.sync.lease.ttlSeconds * 1000,
        waitMs: config.sync.lease.waitSeconds * 1000,
        signal: ctx.signal,
        onWait: (holder) =>
          log.info({ holder }, 'another run of this pipeline is in progress; waiting for it'),
      });
      runId = store.runs.start(pipeline, options);
      // Taken after the lease: every value this scan reads is newer than any earlier scan's.
      generation = store.generations.next(pipeline);
      openRejects = new Set(store.rejects.list({ pipeline }).map((reject) => reject.key));
    }
    let pending: PushItem<W>[] = [];
    read = spec.rows();

    const dispatch = async (batch: PushItem<W>[]): Promise<void> => {
      summary.sent += batch.length;
      summary.extra.batches! += 1;
      if (options.dryRun) {
        const room = PREVIEW_ITEMS - summary.preview!.length;
        if (room > 0) summary.preview!.push(...batch.slice(0, room).map((item) => item.wire));
        log.debug({ items: batch.length }, 'dry run: batch not sent');
        return;
      }
      await pool.submit(() => sendBatch(batch));
    };

    for await (const chunk of batches(read, batchSize)) {
      if (ctx.signal?.aborted)
        throw new ErpSyncError(
          'internal',
          'interrupted (SIGINT/SIGTERM); what was not sent is sent next run',
        );
      const good: R[] = [];
      const sources: RecordSource[] = [];
      const rejects: Reject[] = [];
      for (const row of chunk) {
        summary.read += 1;
        if (!row.ok) {
          rejects.push({ pipeline, key: row.key, reason: row.reason, source: row.source });
          continue;
        }
        const reason = spec.validate(row.record);
        if (reason) rejects.push({ pipeline, key: itemKeyString(row.record), reason, source: row.source });
        else {
          good.push(row.record);
          sources.push(row.source);
        }
      }
      summary.rejected += rejects.length;
      if (rejects.length && !options.dryRun) store.rejects.recordMany(rejects);
      for (const reject of rejects) stillRejected.add(reject.key);

      const items = await spec.prepare(good);
      items.forEach((item, index) => (item.source = sources[index]));
      const known = store.fingerprints.getMany(
        pipeline,
        items.map((item) => item.key),
      );
      for (const item of items) {
        const fingerprint = options.full ? undefined : known.get(item.key);
        if (fingerprint?.missing) {
          summary.notFound += 1;
          summary.extra.knownMissing! += 1;
          stillRejected.add(item.key);
        } else if (fingerprint?.hash === item.hash) summary.unchanged += 1;
        else if (fingerprint?.hash === refusedFingerprint(item.hash)) {
          summary.rejected += 1;
          stillRejected.add(item.key);
        } else pending.push(item);
      }
      // A row that is good now ends its earlier reject (a later duplicate or a refusal records it again).
      const healed = items.filter((item) => openRejects.has(item.key) && !stillRejected.has(item.key));
      if (healed.length) {
        store.rejects.resolveMany(
          pipeline,
          healed.map((item) => item.key),
        );
        for (const item of healed) openRejects.delete(item.key);
      }
      while (pending.length >= batchSize) await dispatch(pending.splice(0, batchSize));
      progress();
    }
    if (pending.length) await dispatch(pending);
    pending = [];
    await pool.drain();
    if (summary.failed) summary.error = `${summary.failed} item(s) not confirmed: ${errors[0]}`;
    // A snapshot read names every key the ERP has: the other open rejects are over. A delta read says nothing about them.
    else if (!options.dryRun && summary.read > 0 && ctx.erp.capabilities.reads[pipeline] === 'snapshot') {
      store.rejects.resolveAllExcept(pipeline, stillRejected);
    }
  } catch (error) {
    // Requests still in flight finish and are recorded before the lease is released.
    await pool.drain().catch(() => undefined);
    failRun(log, summary, error, stopsTheRun(error));
  } finally {
    finishRun(ctx, summary, { started, requestsBefore, runId });
    lease?.release();
  }
  if (!summary.error && !options.dryRun && read?.receipt) await ctx.erp.commit(read.receipt);
  return summary;
}
