import type { Command } from 'commander';
import { loadConfig } from '../config.js';
import { SCHEDULED_PIPELINES } from '../config/daemonConfigSchema.js';
import { enqueueRun } from '../queue/enqueueRun.js';
import type { PipelineName } from '../queue/jobTypes.js';
import { readPauseState } from '../queue/pauseController.js';
import { openQueueClient } from '../queue/queueClient.js';
import { runningDaemons } from '../queue/runningDaemons.js';
import { formatSummaryTable } from '../sync/frame/summary.js';
import type { RunSummary } from '../sync/frame/types.js';
import { runOnce } from './runOnceCommand.js';
import { waitForRuns } from './waitForRuns.js';
import type { GlobalFlags } from './globalFlags.js';

export interface SyncOptions {
  configFile?: string;
  account?: string | undefined;
  target: string;
  full: boolean;
  wait: boolean;
  json: boolean;
  inline: boolean;
}

/** `erp-sync sync <pipeline|all>`: enqueues a run in the running daemon (or runs it inline). Returns the exit code. */
export async function runSync(options: SyncOptions): Promise<number> {
  const pipelines: PipelineName[] =
    options.target === 'all'
      ? [...SCHEDULED_PIPELINES]
      : SCHEDULED_PIPELINES.filter((name) => name === options.target);
  if (pipelines.length === 0) {
    process.stderr.write(
      `erp-sync: unknown pipeline ${options.target}; one of ${SCHEDULED_PIPELINES.join(', ')} or all\n`,
    );
    return 64;
  }
  if (options.inline) {
    return runOnce({
      configFile: options.configFile,
      account: options.account,
      only: pipelines,
      full: options.full,
      dryRun: false,
      json: options.json,
    });
  }
  const config = loadConfig({ file: options.configFile, account: options.account });
  const client = await openQueueClient(config.redis);
  try {
    const runs = client.queue('runs');
    const jobs: { pipeline: PipelineName; id: string }[] = [];
    for (const pipeline of pipelines) {
      const job = await enqueueRun(runs, pipeline, { trigger: 'manual', full: options.full });
      jobs.push({ pipeline, id: job.id! });
    }
    if ((await runningDaemons(client.redis, client.prefix)) === 0) {
      process.stderr.write(
        'erp-sync: no daemon is running on this Redis: the run waits until `erp-sync start` does\n',
      );
    }
    const paused = await readPauseState(client.redis, client.prefix);
    if (paused)
      process.stderr.write(
        `erp-sync: the daemon is paused (${paused.reason}): the run waits until it resumes\n`,
      );
    if (!options.wait) {
      process.stdout.write(
        options.json
          ? `${JSON.stringify({ enqueued: jobs }, null, 2)}\n`
          : jobs.map((job) => `enqueued ${job.pipeline}: job ${job.id}\n`).join(''),
      );
      return 0;
    }
    const views = await waitForRuns(runs, jobs, !options.json && Boolean(process.stderr.isTTY));
    const summaries = views.map((view) => view.summary).filter((s): s is RunSummary => s !== null);
    const failed = views.filter((view) => view.state !== 'completed' || view.summary?.error !== undefined);
    if (options.json) {
      process.stdout.write(`${JSON.stringify({ jobs: views, summaries }, null, 2)}\n`);
    } else {
      if (summaries.length) process.stdout.write(`${formatSummaryTable(summaries)}\n`);
      for (const view of failed)
        process.stdout.write(
          `job ${view.id} ${view.state}: ${
            view.summary?.error
              ? `${view.summary.error.code}: ${view.summary.error.message}`
              : (view.failedReason ?? 'removed before it finished')
          }\n`,
        );
    }
    return failed.length ? 1 : 0;
  } finally {
    await client.close();
  }
}

/** The action of `erp-sync sync <pipeline>`. */
export async function syncCommand(
  target: string,
  flags: { full: boolean; wait: boolean; json: boolean; inline: boolean },
  command: Command,
): Promise<void> {
  process.exitCode = await runSync({
    configFile: command.optsWithGlobals<GlobalFlags>().config,
    account: command.optsWithGlobals<GlobalFlags>().account,
    target,
    ...flags,
  });
}
