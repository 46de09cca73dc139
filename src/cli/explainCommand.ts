import type { Command } from 'commander';
import { loadConfig } from '../config.js';
import { describeError } from '../domain/errors.js';
import { createLogger } from '../createLogger.js';
import { closeSyncContext, createSyncContext } from '../sync/context.js';
import { operatorClientBounds } from '../sync/createPlatformClient.js';
import { explainOrder, type OrderStory } from '../diagnostics/explainOrder.js';
import { jobsCarryingSku } from '../queue/jobsCarryingSku.js';
import {
  explainSku,
  type ItemPipelineStory,
  type SkuJobs,
  type SkuStory,
} from '../diagnostics/explainSku.js';
import { withSkuJobs } from '../diagnostics/withSkuJobs.js';
import { StoreNotFoundError } from '../store/index.js';
import type { SyncContext } from '../sync/frame/types.js';
import { endQuietlyOnClosedPipe } from './endQuietlyOnClosedPipe.js';
import type { GlobalFlags } from './globalFlags.js';

const show = (value: unknown): string =>
  value === null || value === undefined
    ? 'none'
    : typeof value === 'object'
      ? JSON.stringify(value)
      : String(value);

function pipelineLines(name: string, p: ItemPipelineStory): string[] {
  const lines = [`  ${name}: ${p.verdict.text}`];
  if (p.erp && 'rejected' in p.erp)
    lines.push(`    ERP now:        rejected: ${p.erp.rejected}${p.erp.source ? ` at ${p.erp.source}` : ''}`);
  else if (p.erp)
    lines.push(`    ERP now:        ${show(p.erp.value)}${p.erp.source ? ` (${p.erp.source})` : ''}`);
  else lines.push('    ERP now:        no row');
  if (p.held !== undefined) {
    const orders = p.holdingOrders?.length
      ? ` by ${p.holdingOrders.map((o) => `#${o.orderId} (${o.units})`).join(', ')}`
      : '';
    lines.push(
      `    held back:      ${p.held} by the oversell guard${orders}; safety buffer ${p.buffer ?? 0}`,
    );
  }
  lines.push(`    would push:     ${show(p.wouldPush)}`);
  const a = p.acknowledged;
  lines.push(
    `    acknowledged:   ${
      a
        ? a.notOnPlatform
          ? `not on the platform (reported ${a.at ?? '?'})`
          : a.inFlight
            ? `${a.value.slice(1)} sent, answer not recorded (in flight or lost): sent again next run`
            : `${a.value}${a.refused ? ' (refused)' : ''} at ${a.at ?? '?'}${a.byRun ? ` by run #${a.byRun}` : ''}`
        : 'never'
    }`,
  );
  lines.push(`    platform now:   ${p.platform === undefined ? 'not read' : show(p.platform)}`);
  return lines;
}

function jobLines(sku: string, jobs: SkuJobs): string[] {
  if (!jobs.read) return [`jobs:     could not be read: ${jobs.error ?? '?'} (${jobs.where})`];
  const looked = `${jobs.scanned} push job(s) looked at${jobs.truncated ? ', the bound' : ''}; ${jobs.where}`;
  if (!jobs.jobs.length) return [`jobs:     none queued or failed carrying ${sku} (${looked})`];
  return [
    `jobs:     ${jobs.jobs.length} carrying ${sku} (${looked})`,
    ...jobs.jobs.map(
      (job) =>
        `  ${job.queue}/${job.id} ${job.name} ${job.state}, generation ${job.generation}, ${job.attempts} attempt(s)${job.failedReason ? `: ${job.failedReason}` : ''}; ${job.items.map((item) => `${item.key} ${item.value}`).join(', ')}`,
    ),
  ];
}

export function formatSkuStory(story: SkuStory): string {
  const lines = [story.sku, `verdict: ${story.verdict.text}`, ''];
  lines.push(
    `ERP:      ${story.erp.read ? (story.erp.has ? 'has it' : 'does not have it') : `could not be read: ${story.erp.error ?? '?'}`}`,
  );
  lines.push(
    `platform: ${
      !story.platform.read
        ? `could not be read: ${story.platform.error ?? '?'} (what follows is the store's part)`
        : story.platform.found
          ? `product #${story.platform.productId} (${story.platform.status ?? '?'})`
          : 'does not have it'
    }`,
  );
  if (story.jobs) lines.push(...jobLines(story.sku, story.jobs));
  for (const item of story.items) {
    lines.push(
      '',
      `${item.key}`,
      ...pipelineLines('stock', item.stock),
      ...pipelineLines('prices', item.prices),
    );
    for (const r of item.rejects)
      lines.push(`  open reject (${r.pipeline}, since ${r.since}, seen ${r.count}x): ${r.reason}`);
  }
  if (story.runs.length) {
    lines.push('', 'last runs:');
    for (const r of story.runs)
      lines.push(
        `  #${r.id} ${r.pipeline.padEnd(8)} ${r.status.padEnd(7)} ${r.finishedAt ?? r.startedAt}${r.error ? `  ${r.error}` : ''}`,
      );
  }
  return `${lines.join('\n')}\n`;
}

export function formatOrderStory(story: OrderStory): string {
  const { platform: p, erp, parked } = story;
  const lines = [`order ${story.orderId}`, `verdict: ${story.verdict.text}`, ''];
  if (!p.read)
    lines.push(`platform: could not be read: ${p.error ?? '?'} (what follows is the store's part)`);
  else if (!p.found) lines.push('platform: does not know this order');
  else {
    lines.push(
      `platform: ${p.number ?? '?'}, ${p.status}/${p.paymentStatus}, created ${p.createdAt}, updated ${p.updatedAt ?? '?'}`,
    );
    if (p.awb) lines.push(`  AWB:     ${show(p.awb)}`);
    if (p.invoice) lines.push(`  invoice: ${show(p.invoice)}`);
    if (p.history !== undefined) lines.push(`  history: ${show(p.history)}`);
  }
  if (erp.bornInErp)
    lines.push(`ERP:      born in the ERP as ${erp.bornInErp.sourceOrderId} (${erp.bornInErp.state})`);
  else if (erp.reference)
    lines.push(
      `ERP:      ${erp.reference}, imported ${erp.importedAt ?? '?'}${erp.acknowledgedAt ? `, acknowledged ${erp.acknowledgedAt}` : ''}; last received ${erp.deliveredStatus}/${erp.deliveredPaymentStatus} (${erp.changesDelivered} change(s) delivered)${erp.pendingChange ? `; delivering ${show(erp.pendingChange)}` : ''}`,
    );
  else lines.push('ERP:      not imported');
  lines.push(...erpNowLines(story.erpNow, erp.bornInErp !== null));
  if (parked)
    lines.push(
      `parked:   ${parked.code}: ${parked.reason}; ${parked.attempts} attempt(s) since ${parked.firstParkedAt}, next ${parked.nextAttemptAt}`,
    );
  if (story.events.length) {
    lines.push('ERP events:');
    for (const e of story.events)
      lines.push(`  ${e.at} ${e.kind} ${e.eventId}: ${e.outcome}${e.detail ? ` (${e.detail})` : ''}`);
  }
  return `${lines.join('\n')}\n`;
}

function erpNowLines(now: OrderStory['erpNow'], bornInErp: boolean): string[] {
  if (!now.asked) return bornInErp ? [] : ['ERP now:  not asked (this ERP adapter cannot look orders up)'];
  if (!now.read) return [`ERP now:  could not be read: ${now.error ?? '?'}`];
  if (!now.location) return ['ERP now:  not in the ERP'];
  const { erpRef, place, at, facts } = now.location;
  const more = Object.entries(facts).map(([key, value]) => `${key} ${show(value)}`);
  return [`ERP now:  ${erpRef} at ${place}, since ${at ?? '?'}${more.length ? `; ${more.join(', ')}` : ''}`];
}

/** The SKU's story with the daemon's push jobs carrying it, as `explain sku` and the console show it. */
export async function explainSkuWithJobs(ctx: SyncContext, sku: string): Promise<SkuStory> {
  return withSkuJobs(await explainSku(ctx, sku), await jobsCarryingSku(ctx.config.redis, sku));
}

/** 0 in step, 1 anything to see (pending, blocked, unknown id), 2 the platform or the ERP could not be read. */
export function explainExitCode(state: string, couldNotRead: boolean): number {
  if (couldNotRead) return 2;
  return state === 'in_step' ? 0 : 1;
}

async function withContext(
  { config: configFile, account }: GlobalFlags,
  fn: (ctx: SyncContext) => Promise<number>,
): Promise<number> {
  endQuietlyOnClosedPipe();
  const config = loadConfig({ file: configFile, account });
  let ctx: SyncContext;
  try {
    // Looking never creates a store: a mistyped path or schema would explain an empty one.
    ctx = await createSyncContext(config, createLogger({ level: config.log.level }), {
      client: operatorClientBounds(config.api),
      storeMustExist: true,
    });
  } catch (error) {
    if (error instanceof StoreNotFoundError) throw error; // refused as status refuses it
    process.stderr.write(`erp-sync: explain could not start: ${describeError(error)}\n`);
    return 2;
  }
  try {
    return await fn(ctx);
  } finally {
    await closeSyncContext(ctx);
  }
}

/** `erp-sync explain sku <sku>`. */
export async function explainSkuCommand(
  sku: string,
  flags: { json: boolean },
  command: Command,
): Promise<void> {
  const globals = command.optsWithGlobals<GlobalFlags>();
  process.exitCode = await withContext(globals, async (ctx) => {
    const wanted = sku.trim();
    const story = await explainSkuWithJobs(ctx, wanted);
    process.stdout.write(flags.json ? `${JSON.stringify(story, null, 2)}\n` : formatSkuStory(story));
    return explainExitCode(story.verdict.state, !story.platform.read || !story.erp.read);
  });
}

/** `erp-sync explain order <id>`. */
export async function explainOrderCommand(
  id: string,
  flags: { json: boolean },
  command: Command,
): Promise<void> {
  if (!/^[1-9]\d{0,15}$/.test(id.trim())) {
    process.stderr.write(
      `erp-sync: explain order wants a platform order id (a positive whole number), got "${id}"\n`,
    );
    process.exitCode = 64;
    return;
  }
  const globals = command.optsWithGlobals<GlobalFlags>();
  process.exitCode = await withContext(globals, async (ctx) => {
    const story = await explainOrder(ctx, Number(id.trim()));
    process.stdout.write(flags.json ? `${JSON.stringify(story, null, 2)}\n` : formatOrderStory(story));
    return explainExitCode(
      story.verdict.state,
      !story.platform.read || (story.erpNow.asked && !story.erpNow.read),
    );
  });
}
