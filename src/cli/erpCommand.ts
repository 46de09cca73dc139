import type { Command } from 'commander';
import { loadConfig } from '../config.js';
import { ERP_CHANGES } from '../erp/ErpWatch.js';
import { createLogger } from '../createLogger.js';
import { pipelineOfErpChange } from '../sync/pipelineOfErpChange.js';
import type { GlobalFlags } from './globalFlags.js';

const EXIT_USAGE = 64;

/** `erp-sync erp init-staging`: the tools of the SQL adapter, loaded only when the command runs. */
export async function erpInitStagingCommand(
  options: { client?: string; apply?: boolean },
  command: Command,
): Promise<void> {
  const file = command.optsWithGlobals<GlobalFlags>().config ?? process.env.ERP_SYNC_CONFIG;
  const erpConfig = file
    ? loadConfig({
        file,
        account: command.optsWithGlobals<GlobalFlags>().account,
        overrides: { api: { baseUrl: 'http://localhost/api/v2', apiKey: 'unused-by-erp-commands' } },
      }).erp
    : undefined;
  const { initStaging, StagingUsageError } = await import('../erp/sql/initStaging.js');
  try {
    const text = await initStaging(
      {
        ...options,
        config: erpConfig?.type === 'sql' ? erpConfig : undefined,
        notSql: erpConfig && erpConfig.type !== 'sql' ? file : undefined,
      },
      createLogger({ level: 'warn' }),
    );
    process.stdout.write(text);
  } catch (error) {
    if (!(error instanceof StagingUsageError)) throw error;
    process.stderr.write(`erp-sync erp init-staging: ${error.message}\n`);
    process.exitCode = EXIT_USAGE;
  }
}

/** Each pipeline that reads the ERP, with the change its trigger announces. */
const WATCHED_PIPELINES = ERP_CHANGES.flatMap((change) => {
  const pipeline = pipelineOfErpChange(change);
  return pipeline ? [[pipeline, change] as const] : [];
});

/** `erp-sync erp notify-trigger`: the PostgreSQL trigger for `erp.listen`, printed. */
export async function erpNotifyTriggerCommand(
  options: { table: string; pipeline: string; channel?: string },
  command: Command,
): Promise<void> {
  const change = WATCHED_PIPELINES.find(([pipeline]) => pipeline === options.pipeline)?.[1];
  if (!change) {
    process.stderr.write(
      `erp-sync erp notify-trigger: --pipeline must be one of ${WATCHED_PIPELINES.map(([p]) => p).join(', ')}\n`,
    );
    process.exitCode = EXIT_USAGE;
    return;
  }
  const file = command.optsWithGlobals<GlobalFlags>().config ?? process.env.ERP_SYNC_CONFIG;
  const erpConfig = file
    ? loadConfig({
        file,
        account: command.optsWithGlobals<GlobalFlags>().account,
        overrides: { api: { baseUrl: 'http://localhost/api/v2', apiKey: 'unused-by-erp-commands' } },
      }).erp
    : undefined;
  const configured = erpConfig?.type === 'sql' ? erpConfig.listen?.channel : undefined;
  const channel = options.channel ?? configured ?? 'erp_sync';
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(channel)) {
    process.stderr.write(
      'erp-sync erp notify-trigger: --channel must be a lower-case PostgreSQL identifier\n',
    );
    process.exitCode = EXIT_USAGE;
    return;
  }
  const { notifyTriggerSql } = await import('../erp/sql/notifyTrigger.js');
  process.stdout.write(notifyTriggerSql({ table: options.table, change, channel }));
}
