import type { Command } from 'commander';
import { createApiClient } from '../api/createApiClient.js';
import { loadConfig, type Config } from '../config.js';
import { describeError } from '../domain/errors.js';
import { openErpAdapter } from '../erp/createErpAdapter.js';
import { createLogger } from '../logger.js';
import { checkRedis } from '../queue/checkRedis.js';
import { openStore } from '../store/index.js';

interface CheckLine {
  what: string;
  ok: boolean;
  details: string;
}

/**
 * `erp-sync check`: is this deployment able to run? Configuration, the API key (GET /account),
 * the ERP adapter and the store, each on one line. Never prints the key.
 */
export async function runChecks(configFile: string | undefined): Promise<CheckLine[]> {
  let config: Config;
  try {
    config = loadConfig({ file: configFile });
  } catch (error) {
    return [{ what: 'configuration', ok: false, details: describeError(error) }];
  }
  const lines: CheckLine[] = [{ what: 'configuration', ok: true, details: configFile ?? 'environment' }];
  const logger = createLogger({ level: 'silent' });

  const client = createApiClient({
    baseUrl: config.api.baseUrl,
    apiKey: config.api.apiKey,
    authHeader: config.api.authHeader,
    timeoutMs: Math.min(config.api.timeoutMs, 10_000),
    retries: 1,
    deadlineMs: 15_000,
    logger,
  });
  try {
    const account = await client.account.get();
    const name =
      (account as Record<string, unknown>).name ?? (account as Record<string, unknown>).company_name;
    lines.push({
      what: 'platform API',
      ok: true,
      details: `${config.api.baseUrl} (account: ${String(name ?? '?')})`,
    });
  } catch (error) {
    lines.push({
      what: 'platform API',
      ok: false,
      details: `${config.api.baseUrl}: ${describeError(error)}`,
    });
  } finally {
    await client.close();
  }

  try {
    const erp = await openErpAdapter(config.erp, logger);
    try {
      const result = await erp.check();
      lines.push({ what: `ERP (${erp.kind})`, ok: result.ok, details: result.details });
    } finally {
      await erp.close();
    }
  } catch (error) {
    lines.push({ what: 'ERP', ok: false, details: describeError(error) });
  }

  try {
    const store = openStore(config.store.path);
    store.close();
    lines.push({ what: 'store', ok: true, details: config.store.path });
  } catch (error) {
    lines.push({ what: 'store', ok: false, details: `${config.store.path}: ${describeError(error)}` });
  }
  lines.push({ what: 'Redis (daemon queues)', ...(await checkRedis(config.redis)) });
  return lines;
}

export function registerCheckCommand(program: Command): void {
  program
    .command('check')
    .description('check the configuration, the API key (GET /account), the ERP, the store and Redis')
    .option('--json', 'print as JSON', false)
    .action(async (flags: { json: boolean }, command: Command) => {
      const lines = await runChecks(command.optsWithGlobals<{ config?: string }>().config);
      if (flags.json) process.stdout.write(`${JSON.stringify(lines, null, 2)}\n`);
      else
        for (const line of lines)
          process.stdout.write(`${line.ok ? 'ok  ' : 'FAIL'} ${line.what}: ${line.details}\n`);
      process.exitCode = lines.every((line) => line.ok) ? 0 : 1;
    });
}
