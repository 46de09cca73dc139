import type { Command } from 'commander';
import { loadDeployment } from '../config.js';
import { describeStoreConfig } from '../store/openStoreFromConfig.js';
import type { GlobalFlags } from './globalFlags.js';

/** `erp-sync accounts`: what `--account` accepts, and where each account keeps its state. Reads no key. */
export function accountsCommand(flags: { json: boolean }, command: Command): void {
  const globals = command.optsWithGlobals<GlobalFlags>();
  const deployment = loadDeployment({
    file: globals.config,
    account: globals.account,
    overrides: { api: { apiKey: 'unused-by-accounts' } },
  });
  const rows = deployment.accounts.map(({ name, config }) => ({
    account: name,
    baseUrl: config.api.baseUrl,
    erp: config.erp.type,
    store: describeStoreConfig(config.store),
    prefix: config.redis.prefix,
  }));
  if (flags.json) {
    process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    return;
  }
  for (const row of rows)
    process.stdout.write(
      `${row.account}  ${row.baseUrl}  erp ${row.erp}  store ${row.store}  prefix ${row.prefix}\n`,
    );
}
