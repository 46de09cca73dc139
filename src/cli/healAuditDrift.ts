import { describeError } from '../domain/errors.js';
import { healDriftQueued } from '../queue/healDriftQueued.js';
import { readPauseState } from '../queue/pauseController.js';
import { openQueueClient, type QueueClient } from '../queue/queueClient.js';
import { redactRedisUrl } from '../queue/redactRedisUrl.js';
import { runningDaemons } from '../queue/runningDaemons.js';
import {
  healDriftInline,
  healingBatches,
  type HealingBatches,
  type HealOutcome,
} from '../sync/push/healDrift.js';
import { describeFailure } from '../sync/frame/classifyFailure.js';
import type { RunSummary, SyncContext } from '../sync/frame/types.js';
import { waitForRuns } from './waitForRuns.js';

/** What `audit --fix` did: the healer's outcome, why that path, and what came of the wait. */
export interface AuditFix {
  outcome: HealOutcome;
  /** Why this path was taken (`--inline`, no daemon, Redis unreachable, or the daemons found). */
  why: string;
  /** Daemon: things worth knowing (paused). */
  notes: string[];
  /** Daemon with --wait: the flows were waited for (their summaries and failures are in `outcome`). */
  waited: boolean;
}

/** How long the fix looks for the daemon's Redis before it pushes inline. */
const REDIS_TIMEOUT_MS = 2_000;

/**
 * `audit --fix`: the healing pushes go to the daemon when one serves the configured Redis and
 * prefix (so they take turns with its scans under the pipeline lease, and its rate limits apply),
 * else they are sent from this process. `--inline` forces the latter.
 */
export async function healAuditDrift(
  ctx: SyncContext,
  batches: HealingBatches,
  options: { inline: boolean; wait: boolean; tty: boolean },
): Promise<AuditFix> {
  const inline = async (why: string): Promise<AuditFix> => ({
    outcome: await healDriftInline(ctx)(batches, {}),
    why,
    notes: [],
    waited: false,
  });
  if (healingBatches(batches).length === 0) return inline('nothing to push');
  if (options.inline) return inline('--inline');
  const { redis } = ctx.config;
  const where = `${redactRedisUrl(redis.url)}, prefix ${redis.prefix}`;
  let client: QueueClient;
  try {
    client = await openQueueClient(redis, REDIS_TIMEOUT_MS);
  } catch {
    return inline(`Redis at ${redactRedisUrl(redis.url)} is not reachable, so no daemon`);
  }
  try {
    const daemons = await runningDaemons(client.redis, client.prefix);
    if (daemons === 0) return await inline(`no daemon is running on ${where}`);
    const fix: AuditFix = {
      outcome: { via: 'daemon', summaries: [], enqueued: [], failures: [] },
      why: `${daemons} daemon(s) running on ${where}`,
      notes: [],
      waited: false,
    };
    try {
      fix.outcome = await healDriftQueued(client, ctx.config)(batches, {});
    } catch (error) {
      fix.outcome.failures = healingBatches(batches).map((batch) => ({
        pipeline: batch.pipeline,
        part: `${batch.items.length} item(s)`,
        reason: `could not be enqueued: ${describeError(error)}`,
      }));
      return fix;
    }
    const paused = await readPauseState(client.redis, client.prefix);
    if (paused) fix.notes.push(`the daemon is paused (${paused.reason}): the pushes wait until it resumes`);
    if (options.wait) {
      const jobs = fix.outcome.enqueued.map((e) => ({
        pipeline: e.pipeline,
        id: e.job.slice('runs/'.length),
      }));
      const views = await waitForRuns(client.queue('runs'), jobs, options.tty);
      fix.waited = true;
      fix.outcome.summaries = views.map((view) => view.summary).filter((s): s is RunSummary => s !== null);
      for (const [i, view] of views.entries()) {
        const failed =
          view.state !== 'completed'
            ? `${view.state}: ${view.failedReason ?? 'removed before it finished'}`
            : view.summary?.error && describeFailure(view.summary.error);
        if (failed)
          fix.outcome.failures.push({
            pipeline: jobs[i]!.pipeline,
            part: `job runs/${view.id}`,
            reason: failed,
          });
      }
    }
    return fix;
  } finally {
    await client.close();
  }
}
