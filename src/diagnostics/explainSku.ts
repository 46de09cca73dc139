import { NotFoundError } from '../api/errors.js';
import type { ApiProduct } from '../api/schemas.js';
import { describeError } from '../domain/errors.js';
import {
  describeSource,
  itemKeyString,
  type ErpRow,
  type ItemKey,
  type RecordSource,
} from '../domain/records.js';
import type { Fingerprint, FingerprintPipeline, StoredReject, SyncRun } from '../store/index.js';
import { platformItems, type PlatformItem } from '../sync/catalog/catalog.js';
import { isInFlightFingerprint, isRefusedFingerprint } from '../sync/push/fingerprint.js';
import { inStep } from '../sync/push/inStep.js';
import { nextRead, nextReadKeys, readsDelta, type NextRead } from './nextRead.js';
import { describeReject, driftReason } from './pushDrift.js';
import { NOTHING_HELD, type PushKind } from '../sync/push/pushKind.js';
import { PUSH_KINDS, PUSH_PIPELINES, perPushPipeline } from '../sync/push/pushKinds.js';
import type { PushSpec } from '../sync/push/diffPushItems.js';
import { pushSpecOf } from '../sync/push/pushSpecs.js';
import { heldImports } from '../sync/orders/reservations.js';
import { createSafetyBuffer } from '../sync/push/safetyBuffer.js';
import type { SyncContext } from '../sync/frame/types.js';

/**
 * `not_pushed`: no ERP row for this item in this pipeline, and that is normal (the ERP exports the
 * item's other pipeline only, or it is a variable product whose variants carry the values): erp-sync
 * leaves the platform's value alone; it counts as in step.
 */
export type VerdictState = 'in_step' | 'not_pushed' | 'pending' | 'blocked' | 'not_in_erp' | 'unknown';

export interface Verdict {
  state: VerdictState;
  text: string;
}

/** One pipeline's view of one item (SKU or variant). */
export interface ItemPipelineStory {
  /** The ERP's row: its value (stock: quantity; prices: the fields) and where it is; or why it is rejected. */
  erp: { value: unknown; source: string | null } | { rejected: string; source: string | null } | null;
  /** Stock only: units held back by the oversell guard, the orders the store knows holding them, the buffer. */
  held?: number;
  holdingOrders?: { orderId: number; units: number }[];
  buffer?: number;
  /** What erp-sync would push now (stock: a quantity; prices: `p=..|s=..`). */
  wouldPush: unknown;
  /** The last value the platform acknowledged, and when (in-flight and unknown states once the store has them). */
  acknowledged: {
    value: string;
    at: string | null;
    refused: boolean;
    /** Sent, answer not recorded (lost or interrupted): sent again by the next run. */
    inFlight: boolean;
    notOnPlatform: boolean;
    byRun: number | null;
    /** The generation of the push that wrote it (a queued job older than this is superseded). */
    generation: number;
  } | null;
  /** The platform's value now (undefined: not read). */
  platform: unknown;
  verdict: Verdict;
}

export interface ItemStory {
  key: string;
  stock: ItemPipelineStory;
  prices: ItemPipelineStory;
  rejects: { pipeline: string; reason: string; since: string; count: number }[];
}

export interface SkuStory {
  sku: string;
  erp: { read: boolean; error?: string; has: boolean };
  platform: { read: boolean; error?: string; found: boolean; productId?: number; status?: string };
  items: ItemStory[];
  runs: {
    id: number;
    pipeline: string;
    status: string;
    startedAt: string;
    finishedAt: string | null;
    error: string | null;
  }[];
  /** The daemon's push jobs carrying the SKU (absent: not looked for). */
  jobs?: SkuJobs;
  verdict: Verdict;
}

/** One push job in the daemon's queues carrying items of the SKU. */
export interface SkuJob {
  queue: string;
  id: string;
  name: string;
  /** waiting, prioritized, delayed, active or failed. */
  state: string;
  pipeline: FingerprintPipeline;
  generation: number;
  attempts: number;
  failedReason: string | null;
  /** The SKU's items in the job: key and the value it pushes (`q=..`, `p=..|...`). */
  items: { key: string; value: string }[];
}

/** What the daemon's queues hold for the SKU, or why they could not be read. */
export interface SkuJobs {
  read: boolean;
  /** Where they were looked for (Redis URL without password, prefix). */
  where: string;
  error?: string;
  jobs: SkuJob[];
  /** Push jobs looked at, and whether the look stopped at its bound before the end. */
  scanned: number;
  truncated: boolean;
}

const ORDER: VerdictState[] = ['in_step', 'not_pushed', 'not_in_erp', 'pending', 'unknown', 'blocked'];

function whereOf(source: RecordSource | undefined): string | null {
  return describeSource(source) || null;
}

function belongs(sku: string, key: string): boolean {
  return key === sku || key.startsWith(`${sku}/`);
}

/** The ERP rows of one SKU and its variants (the whole read streamed, nothing committed). */
async function erpRowsOf<R extends ItemKey, W>(
  spec: PushSpec<R, W>,
  sku: string,
): Promise<Map<string, ErpRow<R>>> {
  const rows = new Map<string, ErpRow<R>>();
  for await (const row of spec.rows(null)) {
    const key = row.ok ? itemKeyString(row.record) : row.key;
    if (belongs(sku, key)) rows.set(key, row);
  }
  return rows;
}

/** The platform's product for a SKU: by its link (one GET), else by search (one GET). */
async function platformProduct(ctx: SyncContext, sku: string): Promise<ApiProduct | null> {
  const link = ctx.store.productLinks.get(sku);
  if (link) {
    try {
      const product = await ctx.client.products.get(link.productId);
      if (product.sku === sku) return product;
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
    }
    return null;
  }
  const page = await ctx.client.products.list({ search: sku, per_page: 100 });
  return page.data.find((product) => product.sku === sku) ?? null;
}

/**
 * The whole story of one SKU and its variants, read only: the ERP's rows now (through the adapter),
 * the last acknowledged values (fingerprints), the platform's product now (one GET), the units held
 * by the oversell guard and the orders holding them, the safety buffer, open rejects, the last runs,
 * and a verdict per item and overall. An unreachable platform or ERP leaves the store's part.
 */
export async function explainSku(ctx: SyncContext, sku: string): Promise<SkuStory> {
  const { store, config } = ctx;
  const story: SkuStory = {
    sku,
    erp: { read: false, has: false },
    platform: { read: false, found: false },
    items: [],
    runs: [],
    verdict: { state: 'in_step', text: '' },
  };
  const erp = perPushPipeline(() => new Map<string, ErpRow<ItemKey>>());
  // The guard holds orders the ERP may not have taken when its stock was read (heldImports).
  const readStartedAt = new Date().toISOString();
  try {
    for (const pipeline of PUSH_PIPELINES) erp[pipeline] = await erpRowsOf(pushSpecOf(pipeline, ctx), sku);
    story.erp.read = true;
    story.erp.has = PUSH_PIPELINES.some((pipeline) => erp[pipeline].size > 0);
  } catch (error) {
    story.erp.error = describeError(error);
  }
  // With incremental reads, the SKU's keys the next run reads (else only a full read sends them).
  const nextHolds: Partial<Record<FingerprintPipeline, Set<string>>> = {};
  if (story.erp.read) {
    try {
      for (const pipeline of PUSH_PIPELINES) {
        if (!readsDelta(ctx, pipeline)) continue;
        const holds = new Set<string>();
        for await (const keys of nextReadKeys(ctx, pushSpecOf(pipeline, ctx)))
          for (const key of keys) if (belongs(sku, key)) holds.add(key);
        nextHolds[pipeline] = holds;
      }
    } catch {
      // The verdict then says what a run would do; the ERP answered the full read a moment ago.
    }
  }
  const nextOf = (pipeline: FingerprintPipeline, key: string): NextRead | undefined => {
    const holds = nextHolds[pipeline];
    return holds && nextRead(ctx, pipeline, holds.has(key));
  };
  const onPlatform = new Map<string, PlatformItem>();
  try {
    const product = await platformProduct(ctx, sku);
    story.platform.read = true;
    if (product) {
      story.platform.found = true;
      story.platform.productId = product.id;
      story.platform.status = product.status;
      for (const item of platformItems(product)) onPlatform.set(item.key, item);
    }
  } catch (error) {
    story.platform.error = describeError(error);
  }

  const rejects = store.rejects.list().filter((reject) => belongs(sku, reject.key));
  const fingerprints = perPushPipeline(
    (pipeline) => new Map([...store.fingerprints.getMany(pipeline, [sku]), ...prefixed(ctx, pipeline, sku)]),
  );
  const keys = [
    ...new Set([
      ...PUSH_PIPELINES.flatMap((pipeline) => [...erp[pipeline].keys(), ...fingerprints[pipeline].keys()]),
      ...onPlatform.keys(),
      ...rejects.map((reject) => reject.key),
    ]),
  ].sort((a, b) => (a === sku ? -1 : b === sku ? 1 : a.localeCompare(b)));
  if (keys.length === 0) keys.push(sku);

  let held = new Map<string, number>();
  const rule = heldImports(config, ctx.erp.capabilities, Date.now(), readStartedAt);
  if (ctx.reservations) {
    try {
      held = await ctx.reservations.unitsHeld(keys, undefined, readStartedAt);
    } catch {
      // The platform part of the guard needs the platform; the store's part still counts.
      const units = store.orders.links.heldUnits(rule);
      for (const key of keys) {
        const variant = key.includes('/') ? key.slice(key.indexOf('/') + 1) : null;
        const n = units.get(key) ?? (variant ? units.get(variant) : undefined) ?? 0;
        if (n > 0) held.set(key, n);
      }
    }
  }
  const holderSkus = keys.flatMap((key) =>
    key.includes('/') ? [key, key.slice(key.indexOf('/') + 1)] : [key],
  );
  const holders = config.orders.oversellGuard.enabled ? store.orders.links.holders(rule, holderSkus) : [];
  const buffer = createSafetyBuffer(config.sync.safetyBuffer);
  const runs = store.runs.recent(200);

  for (const key of keys) {
    const itemKey: ItemKey = key.includes('/')
      ? { sku: key.slice(0, key.indexOf('/')), variantSku: key.slice(key.indexOf('/') + 1) }
      : { sku: key };
    const variant = itemKey.variantSku;
    const keyRejects = rejects.filter((reject) => reject.key === key);
    const ctxFor = { story, onPlatform: onPlatform.get(key), runs, exported: exportedOf(erp, sku, key) };
    const guard = {
      held: held.get(key) ?? 0,
      holdingOrders: holders
        .filter((h) => h.sku === key || (variant !== undefined && h.sku === variant))
        .map((h) => ({ orderId: h.platformOrderId, units: h.units })),
      buffer: buffer(itemKey),
    };
    const stories = perPushPipeline((pipeline) => {
      const kind = PUSH_KINDS[pipeline];
      return pipelineStory(
        kind,
        key,
        erp[pipeline].get(key),
        fingerprints[pipeline].get(key),
        keyRejects,
        { ...ctxFor, next: nextOf(pipeline, key) },
        kind.holdsBack ? guard : undefined,
      );
    });
    story.items.push({
      key,
      ...stories,
      rejects: keyRejects.map((r) => ({
        pipeline: r.pipeline,
        reason: describeReject(r),
        since: r.firstSeen,
        count: r.count,
      })),
    });
  }
  for (const pipeline of ['catalog', ...PUSH_PIPELINES]) {
    const run = runs.find((r) => r.pipeline === pipeline);
    if (run)
      story.runs.push({
        id: run.id,
        pipeline,
        status: run.status,
        startedAt: run.startedAt,
        finishedAt: run.finishedAt,
        error: run.error,
      });
  }
  story.verdict = overallVerdict(story);
  return story;
}

/** Fingerprints of the SKU's variants (keys `SKU/...`): the store has no prefix query, the product links say which. */
function prefixed(ctx: SyncContext, pipeline: FingerprintPipeline, sku: string): Map<string, Fingerprint> {
  const link = ctx.store.productLinks.get(sku);
  if (!link) return new Map();
  const keys = ctx.store.productLinks
    .byProductId(link.productId)
    .filter((l) => l.variantSku)
    .map((l) => itemKeyString({ sku: l.sku, variantSku: l.variantSku! }));
  return ctx.store.fingerprints.getMany(pipeline, keys);
}

/**
 * What the ERP exports for an item: rows per push pipeline, or (the parent of a variable product)
 * rows of its variants. A pipeline with no row is then normal, not "not in the ERP".
 */
interface Exported {
  rows: Record<FingerprintPipeline, boolean>;
  variants: boolean;
}

function exportedOf(
  erp: Record<FingerprintPipeline, Map<string, ErpRow<ItemKey>>>,
  sku: string,
  key: string,
): Exported {
  const variantRows = (rows: Map<string, unknown>) => [...rows.keys()].some((k) => k.startsWith(`${sku}/`));
  return {
    rows: perPushPipeline((pipeline) => erp[pipeline].has(key)),
    variants: key === sku && PUSH_PIPELINES.some((pipeline) => variantRows(erp[pipeline])),
  };
}

/** Why a pipeline without an ERP row is normal for the item; null when it is simply not in the ERP. */
function notPushedReason(kind: PushKind, exported: Exported): string | null {
  if (exported.variants) return kind.show.variableParent;
  const others = PUSH_PIPELINES.filter((pipeline) => pipeline !== kind.pipeline && exported.rows[pipeline]);
  if (others.length)
    return `not pushed: the ERP exports only ${others.join(' and ')} for it, so the platform keeps its own ${kind.pipeline} (normal, not a problem)`;
  return null;
}

function ackRun(runs: SyncRun[], pipeline: string, at: string | null): number | null {
  if (!at) return null;
  const run = runs.find(
    (r) => r.pipeline === pipeline && r.startedAt <= at && (r.finishedAt === null || at <= r.finishedAt),
  );
  return run?.id ?? null;
}

function pipelineStory(
  kind: PushKind,
  key: string,
  row: ErpRow<ItemKey> | undefined,
  fingerprint: Fingerprint | undefined,
  rejects: StoredReject[],
  about: {
    story: SkuStory;
    onPlatform: PlatformItem | undefined;
    runs: SyncRun[];
    exported: Exported;
    next?: NextRead;
  },
  guard?: { held: number; holdingOrders: { orderId: number; units: number }[]; buffer: number },
): ItemPipelineStory {
  const { story, onPlatform, runs } = about;
  const { pipeline } = kind;
  const platformValue = !story.platform.read ? undefined : onPlatform ? kind.show.platform(onPlatform) : null;
  const out: ItemPipelineStory = {
    erp: null,
    wouldPush: null,
    acknowledged: fingerprint
      ? {
          value: fingerprint.hash,
          at: fingerprint.ackedAt,
          refused: isRefusedFingerprint(fingerprint.hash),
          inFlight: isInFlightFingerprint(fingerprint.hash),
          notOnPlatform: fingerprint.missing,
          byRun: ackRun(runs, pipeline, fingerprint.ackedAt),
          generation: fingerprint.generation,
        }
      : null,
    platform: platformValue,
    verdict: { state: 'in_step', text: '' },
  };
  if (guard) Object.assign(out, guard);
  const reject = rejects.find((r) => r.pipeline === pipeline);
  const say = (state: VerdictState, text: string): ItemPipelineStory => ({
    ...out,
    verdict: { state, text },
  });

  if (row && !row.ok) {
    out.erp = { rejected: row.reason, source: whereOf(row.source) };
    return say(
      'blocked',
      `blocked: the ERP row is rejected: ${reject ? describeReject(reject) : row.reason}; fix it in the ERP`,
    );
  }
  let hash: string | null = null;
  if (row?.ok) {
    const invalid = kind.validate(row.record);
    if (invalid) {
      out.erp = { rejected: invalid, source: whereOf(row.source) };
      return say('blocked', `blocked: the ERP value breaks a rule (${invalid}); fix it in the ERP`);
    }
    const value = kind.value(row.record, guard ?? NOTHING_HELD);
    out.erp = { value: kind.show.erp(row.record), source: whereOf(row.source) };
    out.wouldPush = kind.show.push(value);
    hash = value.hash;
  }
  if (!story.erp.read)
    return say('unknown', `unknown: the ERP could not be read (${story.erp.error ?? '?'})`);
  if (hash === null) {
    const normal = notPushedReason(kind, about.exported);
    if (normal) return say('not_pushed', normal);
    return say(
      'not_in_erp',
      `not in the ERP's ${pipeline}: erp-sync pushes nothing for it (the platform keeps its own value)`,
    );
  }
  if (!story.platform.read)
    return say('unknown', `unknown: the platform could not be read (${story.platform.error ?? '?'})`);
  if (!onPlatform)
    return say(
      'blocked',
      'blocked: not on the platform; create the product (or variant) there, the next catalog run links it',
    );
  if (inStep(pipeline, hash, onPlatform)) {
    if (guard && guard.held > 0)
      return say(
        'in_step',
        `in step, held by the guard: ${guard.held} unit(s) held back by orders not in the ERP yet${guard.holdingOrders.length ? ` (${guard.holdingOrders.map((o) => `#${o.orderId}: ${o.units}`).join(', ')})` : ''}${guard.buffer ? `, and a safety buffer of ${guard.buffer}` : ''}`,
      );
    if (out.acknowledged?.inFlight)
      return say(
        'in_step',
        'in step on the platform; a push went out whose answer was never recorded: the next run sends the same value again',
      );
    return say('in_step', guard?.buffer ? `in step (safety buffer ${guard.buffer})` : 'in step');
  }
  const reason = driftReason(pipeline, hash, fingerprint, reject, about.next);
  const when = about.next && !about.next.holds ? 'by the next full read' : 'at the next run';
  return say(
    reason.heals ? 'pending' : 'blocked',
    `${reason.heals ? `will be pushed ${when}` : 'blocked'}: ${reason.why}`,
  );
}

/** The verdict of the SKU from its items' (the worst wins). */
export function overallVerdict(story: SkuStory): Verdict {
  const all = story.items.flatMap((item) =>
    PUSH_PIPELINES.map((pipeline) => ({ key: item.key, pipeline, verdict: item[pipeline].verdict })),
  );
  if (
    story.erp.read &&
    !story.erp.has &&
    !story.platform.found &&
    all.every((a) => a.verdict.state !== 'blocked')
  )
    return {
      state: 'not_in_erp',
      text: `${story.sku} is neither in the ERP nor on the platform${story.platform.read ? '' : ' (as far as the store knows)'}`,
    };
  if (story.erp.read && !story.erp.has)
    return { state: 'not_in_erp', text: `${story.sku} is not in the ERP: erp-sync pushes nothing for it` };
  const worst = all.reduce((a, b) =>
    ORDER.indexOf(b.verdict.state) > ORDER.indexOf(a.verdict.state) ? b : a,
  );
  const relevant = all.filter(
    (a) => a.verdict.state === worst.verdict.state && a.verdict.state !== 'not_in_erp',
  );
  if (worst.verdict.state === 'in_step' || worst.verdict.state === 'not_pushed') {
    const held = all.find((a) => a.verdict.text.startsWith('in step, held'));
    const notPushed = all.filter((a) => a.verdict.state === 'not_pushed');
    const aside = notPushed.length
      ? `; not pushed, as the ERP exports it: ${notPushed.map((a) => `${a.key} ${a.pipeline}`).join(', ')}`
      : '';
    return { state: 'in_step', text: `${held ? `${held.key}: ${held.verdict.text}` : 'in step'}${aside}` };
  }
  const first = relevant[0] ?? worst;
  const more = relevant.length > 1 ? ` (and ${relevant.length - 1} more)` : '';
  return { state: first.verdict.state, text: `${first.key} ${first.pipeline}: ${first.verdict.text}${more}` };
}
