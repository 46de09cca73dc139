import type { Command } from 'commander';
import { loadConfig } from '../config.js';
import { createLogger } from '../logger.js';

const EXIT_USAGE = 64;

/** `erp-sync erp init-staging`: the tools of the SQL adapter, loaded only when the command runs. */
export async function erpInitStagingCommand(
  options: { client?: string; apply?: boolean },
  command: Command,
): Promise<void> {
  const file = command.optsWithGlobals<{ config?: string }>().config ?? process.env.ERP_SYNC_CONFIG;
  const erpConfig = file
    ? loadConfig({
        file,
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
