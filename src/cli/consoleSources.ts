import type { Queue } from 'bullmq';
import type { Config } from '../config.js';
import { buildDaemonStatus } from '../queue/daemonStatus.js';
import { SCHEDULED_PIPELINES } from '../config/daemonConfigSchema.js';
import { enqueueRun } from '../queue/enqueueRun.js';
import type { ConsoleSources } from '../server/console/ConsoleSources.js';
import { runAudit } from '../diagnostics/audit.js';
import { explainOrder } from '../diagnostics/explainOrder.js';
import { AUDIT_PIPELINES } from '../domain/pipelineNames.js';
import type { SyncContext } from '../sync/frame/types.js';
import { explainSkuWithJobs } from './explainCommand.js';
import { buildStatusReport, runState } from './statusCommand.js';

/** Findings the console's audit keeps (all are counted; `erp-sync audit --json` lists every one). */
const CONSOLE_AUDIT_MAX = 500;

/**
 * The console's sources in the daemon: the same functions as `status`, `explain`, `audit`,
 * `sync` and `orders retry`, over the daemon's own context (store, ERP adapter, API client) and
 * its runs queue.
 */
export function consoleSources(config: Config, ctx: SyncContext, queues: readonly Queue[]): ConsoleSources {
  const runs = queues.find((queue) => queue.name === 'runs');
  if (!runs) throw new Error('the daemon has no runs queue');
  const enqueue = async (pipeline: (typeof SCHEDULED_PIPELINES)[number]): Promise<string> =>
    (await enqueueRun(runs, pipeline, { trigger: 'manual' })).id!;
  return {
    store: ctx.store,
    platform: config.api.baseUrl,
    pipelines: SCHEDULED_PIPELINES,
    status: async () => ({
      ...buildStatusReport(ctx.store),
      daemon: await buildDaemonStatus(config, ctx.store),
    }),
    recentRuns: (limit) => ctx.store.runs.recent(limit).map((run) => ({ ...run, status: runState(run) })),
    erp: async () => ({ kind: ctx.erp.kind, ...(await ctx.erp.check()) }),
    explainSku: (sku) => explainSkuWithJobs(ctx, sku),
    explainOrder: (orderId) => explainOrder(ctx, orderId),
    audit: () => runAudit(ctx, { pipelines: AUDIT_PIPELINES, max: CONSOLE_AUDIT_MAX }),
    sync: enqueue,
    async retryParked(orderIds) {
      const made = ctx.store.orders.parked.makeDue(orderIds.length ? orderIds : undefined);
      return { made, jobId: await enqueue('orders') };
    },
  };
}
