import type { Command } from 'commander';
import { loadConfig } from '../config.js';
import { listFailedJobs, retryFailedJobs } from '../queue/failedJobs.js';
import { openQueueClient } from '../queue/queueClient.js';

function redisConfigOf(command: Command) {
  return loadConfig({
    file: command.optsWithGlobals<{ config?: string }>().config,
    overrides: { api: { baseUrl: 'http://localhost/api/v2', apiKey: 'unused-by-jobs-commands' } },
  }).redis;
}

/** `erp-sync jobs failed`. */
export async function jobsFailedCommand(flags: { json: boolean }, command: Command): Promise<void> {
  const client = await openQueueClient(redisConfigOf(command));
  try {
    const failed = await listFailedJobs(client);
    if (flags.json) {
      process.stdout.write(`${JSON.stringify(failed, null, 2)}\n`);
      return;
    }
    if (failed.length === 0) process.stdout.write('no failed jobs\n');
    for (const job of failed) {
      process.stdout.write(
        `${job.queue}/${job.id}  ${job.name}  ${job.failedAt ?? '?'}  attempts ${job.attempts}: ${job.reason}\n`,
      );
    }
  } finally {
    await client.close();
  }
}

/** `erp-sync jobs retry [ids...]`. */
export async function jobsRetryCommand(
  ids: string[],
  flags: { json: boolean },
  command: Command,
): Promise<void> {
  const client = await openQueueClient(redisConfigOf(command));
  try {
    const result = await retryFailedJobs(client, ids);
    if (flags.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    else {
      process.stdout.write(
        `retried ${result.retried.length} job(s)${result.retried.length ? `: ${result.retried.join(', ')}` : ''}\n`,
      );
      if (result.notFound.length)
        process.stdout.write(`not among the failed jobs: ${result.notFound.join(', ')}\n`);
    }
    process.exitCode = result.notFound.length ? 1 : 0;
  } finally {
    await client.close();
  }
}
