import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import type { ApiAccount } from '../api/index.js';
import { AccountChoiceError, loadConfig, type Config } from '../config.js';
import { describeError } from '../domain/errors.js';
import { openErpAdapter } from '../erp/createErpAdapter.js';
import { silentLogger, type Logger } from '../logger.js';
import { checkRedis } from '../queue/checkRedis.js';
import { describeStoreConfig, openStoreFromConfig, StoreNotFoundError, type Store } from '../store/index.js';
import { createPlatformClient } from '../sync/createPlatformClient.js';
import { accountIdentity, compareAccounts } from '../sync/storeAccount.js';
import { describeAccount, StoreAccountMismatchError } from '../sync/StoreAccountMismatchError.js';
import { EXIT_CONFIG, EXIT_FAILED, EXIT_OK, EXIT_OTHER_ACCOUNT } from './exitCodes.js';
import type { GlobalFlags } from './globalFlags.js';

interface CheckLine {
  what: string;
  ok: boolean;
  details: string;
  /** The exit code this failure stands for (a failed line without one: 1). */
  exitCode?: number;
}

/**
 * `erp-sync check`: is this deployment able to run? Configuration, the API key (GET /account),
 * the ERP adapter and the store, each on one line. Never prints the key.
 */
export async function runChecks(configFile: string | undefined, accountName?: string): Promise<CheckLine[]> {
  let config: Config;
  try {
    config = loadConfig({ file: configFile, account: accountName });
  } catch (error) {
    // Several accounts and none named: each one, its lines naming it.
    if (error instanceof AccountChoiceError && accountName === undefined && error.accounts.length > 1) {
      const lines: CheckLine[] = [];
      for (const name of error.accounts)
        for (const line of await runChecks(configFile, name))
          lines.push({ ...line, what: `account ${name}: ${line.what}` });
      return lines;
    }
    return [{ what: 'configuration', ok: false, details: describeError(error), exitCode: EXIT_CONFIG }];
  }
  const logger = silentLogger();
  // The API, the ERP and Redis are asked at once (their waits overlap; the lines keep their order);
  // the store's line needs the account the API answered. None of the three rejects.
  const platform = checkPlatform(config, logger);
  const erp = checkErp(config, logger);
  const redis = checkRedis(config.redis);
  const { line: platformLine, account } = await platform;
  return [
    { what: 'configuration', ok: true, details: configFile ?? 'environment' },
    platformLine,
    await erp,
    checkStore(config, account),
    { what: 'Redis (daemon queues)', ...(await redis) },
  ];
}

/** GET /account with the configured key; the account it answered, if it did. */
async function checkPlatform(
  config: Config,
  logger: Logger,
): Promise<{ line: CheckLine; account?: ApiAccount }> {
  const client = createPlatformClient(config.api, logger, {
    timeoutMs: Math.min(config.api.timeoutMs, 10_000),
    retries: 1,
    deadlineMs: 15_000,
    // One request: a connection of its own, so check does not load undici's pool.
    oneShot: true,
  });
  // The configuration refuses a URL with credentials, so the URL printed here holds none.
  const hint = /\/api\/v2\/?$/.test(new URL(config.api.baseUrl).pathname)
    ? ''
    : '; hint: an API v2 base URL ends in /api/v2';
  try {
    const account = await client.account.get();
    const name = account.name ?? account.company_name;
    return {
      line: {
        what: 'platform API',
        ok: true,
        details: `${config.api.baseUrl} (account: ${String(name ?? '?')})${hint}`,
      },
      account,
    };
  } catch (error) {
    return {
      line: {
        what: 'platform API',
        ok: false,
        details: `${config.api.baseUrl}: ${describeError(error)}${hint}`,
      },
    };
  } finally {
    await client.close();
  }
}

/** The ERP adapter's own check. */
async function checkErp(config: Config, logger: Logger): Promise<CheckLine> {
  try {
    const erp = await openErpAdapter(config.erp, logger);
    try {
      const result = await erp.check();
      return { what: `ERP (${erp.kind})`, ok: result.ok, details: result.details };
    } finally {
      await erp.close();
    }
  } catch (error) {
    return { what: 'ERP', ok: false, details: describeError(error) };
  }
}

/** The store, if there is one (check never creates it), and the account it belongs to. */
function checkStore(config: Config, account: ApiAccount | undefined): CheckLine {
  const path = describeStoreConfig(config.store);
  const configured = config.store;
  if (configured.type !== 'postgres' && configured.path !== ':memory:' && !existsSync(configured.path)) {
    return { what: 'store', ok: true, details: `${path} does not exist yet; the first run creates it` };
  }
  try {
    let store: Store;
    try {
      store = openStoreFromConfig(config.store, { mustExist: true });
    } catch (error) {
      if (!(error instanceof StoreNotFoundError)) throw error;
      return { what: 'store', ok: true, details: `${path} does not exist yet; the first run creates it` };
    }
    try {
      const bound = store.account.get();
      if (!bound) return { what: 'store', ok: true, details: `${path} (not bound to an account yet)` };
      const current = account ? accountIdentity(config.api.baseUrl, account) : undefined;
      const verdict = current ? compareAccounts(bound, current) : 'same';
      if (current && verdict === 'other') {
        const mismatch = new StoreAccountMismatchError(path, bound, current);
        return { what: 'store', ok: false, details: mismatch.message, exitCode: EXIT_OTHER_ACCOUNT };
      }
      if (current && verdict === 'moved') {
        const moved = `the same company now answers at ${current.baseUrl}: the next run records the new address`;
        return { what: 'store', ok: true, details: `${path} (${describeAccount(bound)}; ${moved})` };
      }
      return { what: 'store', ok: true, details: `${path} (${describeAccount(bound)})` };
    } finally {
      store.close();
    }
  } catch (error) {
    return { what: 'store', ok: false, details: `${path}: ${describeError(error)}` };
  }
}

/** `erp-sync check`. */
export async function checkCommand(flags: { json: boolean }, command: Command): Promise<void> {
  const lines = await runChecks(
    command.optsWithGlobals<GlobalFlags>().config,
    command.optsWithGlobals<GlobalFlags>().account,
  );
  if (flags.json) process.stdout.write(`${JSON.stringify(lines, null, 2)}\n`);
  else
    for (const line of lines)
      process.stdout.write(`${line.ok ? 'ok  ' : 'FAIL'} ${line.what}: ${line.details}\n`);
  const failed = lines.filter((line) => !line.ok);
  process.exitCode = failed.length === 0 ? EXIT_OK : (failed[0]!.exitCode ?? EXIT_FAILED);
}
