import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApiClient, type ApiClient } from '../../src/api/createApiClient.js';
import { writeConfigFile } from '../../src/config.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/startSandbox.js';
import { startDaemonProcess, type DaemonProcess } from '../../dev/daemonProcess.js';
import { startPrivateRedis, type PrivateRedis } from '../../dev/redisServer.js';
import { FAST_SCHEDULES } from './daemonWorld.js';

/** One account of the world: its own sandbox (its own company), drop folder and API key variable. */
export interface WorldAccount {
  name: string;
  sandbox: Sandbox;
  erpDir: string;
  /** The environment variable its entry names (api.apiKeyEnv). */
  keyEnv: string;
  /** With `keyFile`: the file its entry names instead (api.apiKeyFile), holding its key at start. */
  keyFile: string | undefined;
  api: ApiClient;
  writeStock(rows: { sku: string; quantity: number }[]): void;
}

export interface AccountsWorld {
  redis: PrivateRedis;
  dir: string;
  configFile: string;
  env: Record<string, string>;
  accounts: WorldAccount[];
  start(): Promise<DaemonProcess>;
  close(): Promise<void>;
}

/**
 * A private Redis and one sandbox per account, and a configuration with `accounts:` naming them,
 * for `erp-sync start`: several accounts in one process, each against its own platform company.
 */
export async function startAccountsWorld(
  names: string[],
  options: {
    config?: Record<string, unknown>;
    accountConfig?: Record<string, unknown>;
    /** Accounts whose key is in a file (api.apiKeyFile) rather than a variable. */
    keyFile?: string[];
  } = {},
): Promise<AccountsWorld> {
  const redis = await startPrivateRedis();
  const dir = mkdtempSync(join(tmpdir(), 'erp-sync-accounts-'));
  const accounts: WorldAccount[] = [];
  for (const name of names) {
    const sandbox = await startSandbox({ seed: 'demo', recordBodies: false, faults: null });
    const erpDir = join(dir, name, 'erp');
    mkdirSync(erpDir, { recursive: true });
    accounts.push({
      name,
      sandbox,
      erpDir,
      keyEnv: `${name.toUpperCase()}_CMS_API_KEY`,
      keyFile: options.keyFile?.includes(name) ? join(dir, name, 'api.key') : undefined,
      api: createApiClient({ baseUrl: sandbox.url, apiKey: sandbox.keys.primary, retries: 3 }),
      writeStock(rows) {
        const file = join(erpDir, 'stock.csv');
        const body = ['sku,quantity', ...rows.map((r) => `${r.sku},${r.quantity}`)].join('\n');
        writeFileSync(`${file}.tmp`, `${body}\n`);
        renameSync(`${file}.tmp`, file);
      },
    });
  }
  const configFile = writeConfigFile(join(dir, 'config.yaml'), {
    log: { level: 'info' },
    orders: { oversellGuard: { enabled: false } },
    redis: { prefix: 'e2e' },
    server: { host: '127.0.0.1', port: 0 },
    schedules: FAST_SCHEDULES,
    shutdownGraceSeconds: 5,
    ...options.config,
    accounts: accounts.map((account) => ({
      name: account.name,
      api: account.keyFile
        ? { baseUrl: account.sandbox.url, apiKeyFile: account.keyFile }
        : { baseUrl: account.sandbox.url, apiKeyEnv: account.keyEnv },
      erp: { type: 'file', path: account.erpDir, stableMs: 0 },
      ...options.accountConfig,
    })),
  });
  const env: Record<string, string> = { REDIS_URL: redis.url };
  for (const account of accounts) {
    if (account.keyFile) writeFileSync(account.keyFile, `${account.sandbox.keys.primary}\n`);
    else env[account.keyEnv] = account.sandbox.keys.primary;
  }
  const daemons: DaemonProcess[] = [];
  return {
    redis,
    dir,
    configFile,
    env,
    accounts,
    async start() {
      const daemon = await startDaemonProcess(configFile, env);
      daemons.push(daemon);
      return daemon;
    },
    async close() {
      for (const daemon of daemons) {
        daemon.kill('SIGKILL');
        await daemon.exited;
      }
      for (const account of accounts) {
        await account.api.close();
        await account.sandbox.close();
      }
      await redis.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
