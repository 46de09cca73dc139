import type { Command } from 'commander';
import { AccountChoiceError, loadDeployment, type AccountConfig, type Deployment } from '../config.js';
import { listFailedJobs, retryFailedJobs, type FailedJobView } from '../queue/failedJobs.js';
import { openQueueClient, type QueueClient } from '../queue/queueClient.js';
import type { GlobalFlags } from './globalFlags.js';

/** The accounts whose queues a jobs command reads: `--account`'s, else every account of the configuration. */
function deploymentOf(command: Command): Deployment {
  const globals = command.optsWithGlobals<GlobalFlags>();
  return loadDeployment({
    file: globals.config,
    account: globals.account,
    overrides: { api: { baseUrl: 'http://localhost/api/v2', apiKey: 'unused-by-jobs-commands' } },
  });
}

async function eachAccount<T>(
  accounts: readonly AccountConfig[],
  fn: (client: QueueClient, account: AccountConfig) => Promise<T>,
): Promise<T[]> {
  const out: T[] = [];
  for (const account of accounts) {
    const client = await openQueueClient(account.config.redis);
    try {
      out.push(await fn(client, account));
    } finally {
      await client.close();
    }
  }
  return out;
}

/** `erp-sync jobs failed`: with several accounts and no --account, every account's, each line naming it. */
export async function jobsFailedCommand(flags: { json: boolean }, command: Command): Promise<void> {
  const deployment = deploymentOf(command);
  const failed = (
    await eachAccount(deployment.accounts, async (client, account) =>
      (await listFailedJobs(client)).map((job): FailedJobView & { account?: string } =>
        deployment.multi ? { account: account.name, ...job } : job,
      ),
    )
  ).flat();
  if (flags.json) {
    process.stdout.write(`${JSON.stringify(failed, null, 2)}\n`);
    return;
  }
  if (failed.length === 0) process.stdout.write('no failed jobs\n');
  for (const job of failed) {
    process.stdout.write(
      `${job.account ? `${job.account}: ` : ''}${job.queue}/${job.id}  ${job.name}  ${job.failedAt ?? '?'}  attempts ${job.attempts}: ${job.reason}\n`,
    );
  }
}

/** `erp-sync jobs retry [ids...]`: ids are an account's (--account with several); none: every failed job of every account. */
export async function jobsRetryCommand(
  ids: string[],
  flags: { json: boolean },
  command: Command,
): Promise<void> {
  const deployment = deploymentOf(command);
  if (ids.length > 0 && deployment.accounts.length > 1) {
    throw new AccountChoiceError(
      `job ids belong to one account: choose it with --account NAME (${deployment.names.join(', ')})`,
      deployment.names,
    );
  }
  const results = await eachAccount(deployment.accounts, async (client, account) => {
    const result = await retryFailedJobs(client, ids);
    const named = deployment.multi ? result.retried.map((id) => `${account.name}:${id}`) : result.retried;
    return { ...result, retried: named };
  });
  const retried = results.flatMap((result) => result.retried);
  const notFound = results.flatMap((result) => result.notFound);
  if (flags.json) process.stdout.write(`${JSON.stringify({ retried, notFound }, null, 2)}\n`);
  else {
    process.stdout.write(
      `retried ${retried.length} job(s)${retried.length ? `: ${retried.join(', ')}` : ''}\n`,
    );
    if (notFound.length) process.stdout.write(`not among the failed jobs: ${notFound.join(', ')}\n`);
  }
  process.exitCode = notFound.length ? 1 : 0;
}
