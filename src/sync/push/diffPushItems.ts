import { ErpSyncError } from '../../domain/errors.js';
import { itemKeyString, type ItemKey, type RecordSource, type Reject } from '../../domain/records.js';
import type { ErpRead, ReadReceipt } from '../../erp/ErpRead.js';
import type { FingerprintPipeline } from '../../store/index.js';
import { batches } from '../frame/batches.js';
import { refusedFingerprint } from './fingerprint.js';
import type { PushItem } from './pushBatch.js';
import type { PushKind } from './pushKind.js';
import type { RunOptions, RunSummary, SyncContext } from '../frame/types.js';
import { lastCommittedRead } from './erpReadCommit.js';

/**
 * A push pipeline within a run: what differs (its PushKind) and how it reads the ERP with the
 * run's context; the stages do the rest.
 */
export interface PushSpec<R extends ItemKey, W> extends PushKind<R, W> {
  /** The ERP's rows; `after`: the last committed read's receipt (null: a full read). */
  rows(after: ReadReceipt | null): ErpRead<R>;
  /**
   * One item per record, in order, for one chunk of rows, each with its row's source when given (the stock
   * pipeline asks for reservations here).
   */
  prepare(records: R[], sources?: RecordSource[]): Promise<PushItem<W>[]>;
}

/**
 * The state of one scan: its generation (taken under the pipeline's lease, so every value it
 * reads is newer than any earlier scan's; 0 for a dry run, which writes nothing) and the rejects
 * it met, for closing the others after a complete run.
 */
export interface PushScan {
  pipeline: FingerprintPipeline;
  generation: number;
  full: boolean;
  dryRun: boolean;
  /** Open rejects of the pipeline when the scan began, less those healed since. */
  openRejects: Set<string>;
  /** Keys with a reject this run (or kept from an earlier one: known missing, refused and unchanged). */
  stillRejected: Set<string>;
  /** The last committed read's receipt, handed to the ERP so a delta adapter reads only what changed (null: all). */
  after: ReadReceipt | null;
  /** Once the ERP was read to the end: what `erp.commit` needs to finish that read (null: nothing). */
  receipt: ReadReceipt | null;
}

/** Begins a scan; call it with the pipeline's lease held. */
export function beginPushScan(
  ctx: SyncContext,
  pipeline: FingerprintPipeline,
  options: Pick<RunOptions, 'full' | 'dryRun'>,
): PushScan {
  const { store } = ctx;
  // Batches whose answers were lost and whose items were acknowledged since hold nothing in flight.
  if (!options.dryRun) store.fingerprints.pruneInFlight(pipeline);
  return {
    pipeline,
    generation: options.dryRun ? 0 : store.generations.next(pipeline),
    full: options.full,
    dryRun: options.dryRun,
    openRejects: options.dryRun
      ? new Set()
      : new Set(store.rejects.list({ pipeline }).map((reject) => reject.key)),
    stillRejected: new Set(),
    after: options.full ? null : lastCommittedRead(store, pipeline),
    receipt: null,
  };
}

/**
 * Read and validate: the ERP's rows in chunks of `sync.batchSize`, bad rows recorded as rejects
 * (not in a dry run), the good ones prepared as push items with their source.
 */
export async function* readPushItems<R extends ItemKey, W>(
  ctx: SyncContext,
  spec: PushSpec<R, W>,
  scan: PushScan,
  summary: RunSummary,
  signal?: AbortSignal,
): AsyncGenerator<PushItem<W>[]> {
  const { pipeline } = spec;
  const read = spec.rows(scan.after);
  for await (const chunk of batches(read, ctx.config.sync.batchSize)) {
    if (signal?.aborted)
      throw new ErpSyncError('internal', 'interrupted (SIGINT/SIGTERM); what was not sent is sent next run');
    const good: R[] = [];
    const sources: RecordSource[] = [];
    const rejects: Reject[] = [];
    // Indexed, as in batches(): this generator's loop is not optimised.
    for (let at = 0; at < chunk.length; at++) {
      const row = chunk[at]!;
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
    if (rejects.length && !scan.dryRun) ctx.store.rejects.recordMany(rejects);
    for (const reject of rejects) scan.stillRejected.add(reject.key);
    yield await spec.prepare(good, sources);
  }
  scan.receipt = read.receipt;
}

/**
 * Diff: compares prepared items with their acknowledged fingerprints and returns the ones to send.
 * Equal ones are unchanged, known-missing and refused-unchanged ones keep their reject; a good
 * item ends its earlier reject (a refusal later this run records it again).
 */
export function diffPushItems<W>(
  ctx: SyncContext,
  scan: PushScan,
  items: PushItem<W>[],
  summary: RunSummary,
): PushItem<W>[] {
  const { store } = ctx;
  const { pipeline } = scan;
  // Batches in flight of this scan hold none of the keys it has still to read (a dry run has none).
  // A full scan ignores what is known.
  const known: readonly (string | null | undefined)[] = scan.full
    ? []
    : store.fingerprints.hashes(
        pipeline,
        items.map((item) => item.key),
        scan.dryRun ? {} : { before: scan.generation },
      );
  const pending: PushItem<W>[] = [];
  // Indexed, as in batches(): called once per chunk, this function is seldom optimised.
  for (let at = 0; at < items.length; at++) {
    const item = items[at]!;
    const hash = known[at];
    if (hash === null) {
      summary.notFound += 1;
      summary.extra.knownMissing = (summary.extra.knownMissing ?? 0) + 1;
      scan.stillRejected.add(item.key);
    } else if (hash === item.hash) summary.unchanged += 1;
    else if (hash === refusedFingerprint(item.hash)) {
      summary.rejected += 1;
      scan.stillRejected.add(item.key);
    } else pending.push(item);
  }
  // No open reject (the usual case): nothing to heal, no look-up per item.
  const healed = scan.openRejects.size
    ? items.filter((item) => scan.openRejects.has(item.key) && !scan.stillRejected.has(item.key))
    : [];
  if (healed.length) {
    store.rejects.resolveMany(
      pipeline,
      healed.map((item) => item.key),
    );
    for (const item of healed) scan.openRejects.delete(item.key);
  }
  return pending;
}

/**
 * After a complete run with every batch confirmed: every other open reject of the pipeline is over
 * (fixed, or gone from the ERP). Only when the adapter reads snapshots: a row missing from a delta
 * read says nothing about its earlier reject.
 */
export function closePushScan(ctx: SyncContext, scan: PushScan, summary: RunSummary): void {
  if (scan.dryRun || summary.read === 0) return;
  if (ctx.erp.capabilities.reads[scan.pipeline] !== 'snapshot') return;
  ctx.store.rejects.resolveAllExcept(scan.pipeline, scan.stillRejected);
}
