import type { ApiOrderSummary } from '../api/schemas.js';
import { itemKeyString, type ItemKey } from '../domain/records.js';
import {
  ScratchTable,
  type Fingerprint,
  type FingerprintPipeline,
  type StoredReject,
} from '../store/index.js';
import { batches } from '../sync/frame/batches.js';
import { platformItems } from '../sync/catalog/catalog.js';
import { inStep } from '../sync/push/inStep.js';
import type { PushBatch, PushItem } from '../sync/push/pushBatch.js';
import type { PlatformValues } from '../sync/push/fingerprint.js';
import { PUSH_PIPELINES } from '../sync/push/pushKinds.js';
import { pushSpecOf } from '../sync/push/pushSpecs.js';
import { nextRead, nextReadKeys, readsDelta } from './nextRead.js';
import { describeReject, driftReason } from './pushDrift.js';
import type { AuditPipeline } from '../domain/pipelineNames.js';
import type { PushSpec } from '../sync/push/diffPushItems.js';
import type { SyncContext } from '../sync/frame/types.js';
import { monotonicMs } from '../domain/monotonicMs.js';

export type FindingKind = 'stock' | 'prices' | 'order_not_in_erp' | 'order_gone';

/** One difference between the ERP and the platform, and whether it is expected to heal by itself. */
export interface AuditFinding {
  kind: FindingKind;
  /** Item key (`SKU` or `SKU/VARIANT`) or platform order id. */
  key: string;
  /** The platform's value (null: the platform does not have it). */
  platform: unknown;
  /** What erp-sync would push (stock, prices) or what the ERP holds (orders). */
  expected: unknown;
  heals: boolean;
  why: string;
}

export interface AuditProgress {
  side: 'platform' | 'erp' | 'orders';
  read: number;
}

export interface AuditOptions {
  pipelines: readonly AuditPipeline[];
  /** Findings kept in the report (all are counted). */
  max: number;
  onProgress?: (progress: AuditProgress) => void;
  /** Keeps the items whose push heals their drift, per pipeline (for `--fix`). */
  collectFixes?: boolean;
}

export interface AuditReport {
  complete: boolean;
  pipelines: AuditPipeline[];
  read: {
    platformItems: number;
    erpRows: Record<string, number>;
    platformOrders: number;
    orderLinks: number;
  };
  counts: Record<FindingKind, number>;
  drift: number;
  findings: AuditFinding[];
  truncated: boolean;
  seconds: number;
  /** Where the time went: reading the platform catalog, reading the ERP and comparing, the orders. */
  phases: { platformSeconds: number; erpSeconds: number; ordersSeconds: number };
  /** Why the audit could not finish (`complete` false). */
  error?: string;
  /**
   * With collectFixes: per push pipeline, the items whose push heals their drift, as one batch
   * whose generation was taken before the ERP was read (a later scan's value always wins).
   */
  fixes?: Partial<Record<FingerprintPipeline, PushBatch>>;
}

const PLATFORM = 'platform';
const ORDERS = 'orders';

/**
 * The read-only comparison of the ERP and the platform: the platform catalog is read by pages into
 * a scratch table on disk, then the ERP is read through its adapter in chunks and each chunk is
 * compared with the platform and the store (bounded memory on both sides). For stock, the value
 * compared is what the stock pipeline would push (ERP less units held by orders less the buffer).
 * Orders: platform orders in an import status the ERP does not have (no link, not born in the
 * ERP), and linked orders the platform no longer has. Sends no write request, writes nothing.
 * With incremental ERP reads, a drift "a run is due" is checked against the read the next run
 * makes: an item missing from it heals only by a full read, and the finding says so.
 */
export async function runAudit(ctx: SyncContext, options: AuditOptions): Promise<AuditReport> {
  const started = monotonicMs();
  const report: AuditReport = {
    complete: false,
    pipelines: [...options.pipelines],
    read: { platformItems: 0, erpRows: {}, platformOrders: 0, orderLinks: 0 },
    counts: { stock: 0, prices: 0, order_not_in_erp: 0, order_gone: 0 },
    drift: 0,
    findings: [],
    truncated: false,
    seconds: 0,
    phases: { platformSeconds: 0, erpSeconds: 0, ordersSeconds: 0 },
  };
  const since = (from: number): number => (monotonicMs() - from) / 1000;
  if (options.collectFixes) report.fixes = {};
  /** Counts a finding and keeps it in the report while there is room; true when kept. */
  const found = (finding: AuditFinding): boolean => {
    report.counts[finding.kind] += 1;
    report.drift += 1;
    if (report.findings.length < options.max) {
      report.findings.push(finding);
      return true;
    }
    report.truncated = true;
    return false;
  };
  const scratch = new ScratchTable();
  try {
    const push = PUSH_PIPELINES.filter((pipeline) => options.pipelines.includes(pipeline));
    if (push.length) {
      let from = monotonicMs();
      await readPlatformCatalog(ctx, scratch, report, options);
      report.phases.platformSeconds = since(from);
      from = monotonicMs();
      for (const pipeline of push)
        await comparePush(ctx, scratch, pushSpecOf(pipeline, ctx), report, options, found);
      report.phases.erpSeconds = since(from);
    }
    if (options.pipelines.includes('orders')) {
      const from = monotonicMs();
      await compareOrders(ctx, scratch, report, options, found);
      report.phases.ordersSeconds = since(from);
    }
    report.complete = true;
  } catch (error) {
    report.error = error instanceof Error ? error.message : String(error);
  } finally {
    scratch.close();
    report.seconds = since(started);
  }
  return report;
}

async function readPlatformCatalog(
  ctx: SyncContext,
  scratch: ScratchTable,
  report: AuditReport,
  options: AuditOptions,
): Promise<void> {
  for await (const page of batches(ctx.client.products.iterate(), ctx.config.sync.catalog.perPage)) {
    const items = page.flatMap(platformItems);
    // A variable product's undefined stock is left out of the JSON, and read back undefined.
    scratch.putMany(
      PLATFORM,
      items.map((item): [string, PlatformValues] => [item.key, { stock: item.stock, prices: item.prices }]),
    );
    report.read.platformItems += items.length;
    options.onProgress?.({ side: 'platform', read: report.read.platformItems });
  }
}

async function comparePush<R extends ItemKey, W>(
  ctx: SyncContext,
  scratch: ScratchTable,
  spec: PushSpec<R, W>,
  report: AuditReport,
  options: AuditOptions,
  found: (finding: AuditFinding) => boolean,
): Promise<void> {
  const { pipeline } = spec;
  const { store } = ctx;
  const rejects = new Map<string, StoredReject>();
  for (const reject of store.rejects.list({ pipeline }))
    if (!rejects.has(reject.key)) rejects.set(reject.key, reject);
  // Taken before the read, as a scan takes it: a scan that reads the ERP later confirms over it.
  const fixes: PushBatch | undefined = report.fixes
    ? { pipeline, generation: store.generations.next(pipeline), items: [] }
    : undefined;
  if (fixes) report.fixes![pipeline] = fixes;
  let read = 0;
  // Kept findings a run would heal: with incremental reads, only if the next run's read holds them.
  const awaitingNextRead: {
    finding: AuditFinding;
    hash: string;
    fingerprint: Fingerprint | undefined;
    reject: StoredReject | undefined;
  }[] = [];
  // A full read (no receipt): the audit compares everything, whatever a delta adapter committed.
  for await (const chunk of batches(spec.rows(null), ctx.config.sync.batchSize)) {
    read += chunk.length;
    const good: R[] = [];
    const bad: { key: string; reason: string }[] = [];
    for (const row of chunk) {
      if (!row.ok) bad.push({ key: row.key, reason: row.reason });
      else {
        const reason = spec.validate(row.record);
        if (reason) bad.push({ key: itemKeyString(row.record), reason });
        else good.push(row.record);
      }
    }
    const items = await spec.prepare(good);
    const keys = [...items.map((item) => item.key), ...bad.map((b) => b.key)];
    const platform = scratch.getMany<PlatformValues>(PLATFORM, keys);
    const fingerprints = store.fingerprints.getMany(pipeline, keys);
    for (const b of bad) {
      const onPlatform = platform.get(b.key);
      if (!onPlatform) continue;
      const reject = rejects.get(b.key);
      found({
        kind: pipeline,
        key: b.key,
        platform: spec.show.platform(onPlatform),
        expected: null,
        heals: false,
        why: `the ERP row is rejected: ${reject ? describeReject(reject) : b.reason}; fix it in the ERP`,
      });
    }
    for (const item of items) {
      const onPlatform = platform.get(item.key);
      const reject = rejects.get(item.key);
      if (!onPlatform) {
        found({
          kind: pipeline,
          key: item.key,
          platform: null,
          expected: spec.show.push(item),
          heals: false,
          why: 'not on the platform: create the product (or variant) there, or leave it out of the ERP export',
        });
        continue;
      }
      if (inStep(pipeline, item.hash, onPlatform)) continue;
      const fingerprint = fingerprints.get(item.key);
      const reason = driftReason(pipeline, item.hash, fingerprint, reject);
      const finding: AuditFinding = {
        kind: pipeline,
        key: item.key,
        platform: spec.show.platform(onPlatform),
        expected: spec.show.push(item),
        heals: reason.heals,
        why: reason.why,
      };
      if (found(finding) && reason.heals)
        awaitingNextRead.push({ finding, hash: item.hash, fingerprint, reject });
      if (reason.pushable) fixes?.items.push(item as PushItem);
    }
    report.read.erpRows[pipeline] = read;
    options.onProgress?.({ side: 'erp', read });
  }
  report.read.erpRows[pipeline] = read;
  if (awaitingNextRead.length && readsDelta(ctx, pipeline)) {
    // Read after the full read: a change the full read saw and an incremental read can see is in it.
    const wanted = new Set(awaitingNextRead.map((a) => a.finding.key));
    const held = new Set<string>();
    for await (const keys of nextReadKeys(ctx, spec))
      for (const key of keys) if (wanted.has(key)) held.add(key);
    for (const { finding, hash, fingerprint, reject } of awaitingNextRead) {
      const reason = driftReason(
        pipeline,
        hash,
        fingerprint,
        reject,
        nextRead(ctx, pipeline, held.has(finding.key)),
      );
      finding.heals = reason.heals;
      finding.why = reason.why;
    }
  }
}

async function compareOrders(
  ctx: SyncContext,
  scratch: ScratchTable,
  report: AuditReport,
  options: AuditOptions,
  found: (finding: AuditFinding) => boolean,
): Promise<void> {
  const { store, config } = ctx;
  const orders = store.orders;
  for await (const page of batches(ctx.client.orders.iterate(), 100)) {
    scratch.putMany(
      ORDERS,
      page.map((order) => [String(order.id), order.status]),
    );
    report.read.platformOrders += page.length;
    const importable = page.filter((order) => config.orders.importStatuses.includes(order.status));
    const links = orders.links.getMany(importable.map((order) => order.id));
    for (const order of importable) {
      if (links.has(order.id) || orders.outgoing.byPlatformOrderId(order.id)) continue;
      found(orderNotInErp(ctx, order));
    }
    options.onProgress?.({ side: 'orders', read: report.read.platformOrders });
  }
  const PAGE = 500;
  for (let offset = 0; ; offset += PAGE) {
    const links = orders.links.list(PAGE, offset);
    report.read.orderLinks += links.length;
    const present = scratch.getMany<string>(
      ORDERS,
      links.map((link) => String(link.platformOrderId)),
    );
    for (const link of links) {
      if (present.has(String(link.platformOrderId))) continue;
      found({
        kind: 'order_gone',
        key: String(link.platformOrderId),
        platform: null,
        expected: { erpRef: link.erpRef, status: link.status },
        heals: false,
        why: `the platform no longer has this order; the ERP has it as ${link.erpRef}: check it in the ERP`,
      });
    }
    if (links.length < PAGE) break;
  }
}

function orderNotInErp(ctx: SyncContext, order: ApiOrderSummary): AuditFinding {
  const parked = ctx.store.orders.parked.get(order.id);
  const base = {
    kind: 'order_not_in_erp' as const,
    key: String(order.id),
    platform: order.status,
    expected: null,
  };
  if (parked)
    return {
      ...base,
      heals: false,
      why: `parked: ${parked.reason} (attempt ${parked.attempts}, next retry ${parked.nextAttemptAt}); fix the cause in the ERP`,
    };
  return { ...base, heals: true, why: 'an orders run is due: it imports the order into the ERP' };
}
