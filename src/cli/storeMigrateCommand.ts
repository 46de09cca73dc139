import type { Command } from 'commander';
import { ConfigError } from '../config.js';
import {
  DEFAULT_STORE_PASSWORD_ENV,
  storeConfigSchema,
  type PostgresStoreConfig,
  type StoreConfig,
} from '../config/storeConfigSchema.js';
import { compareStores, copyStore, mismatch, type TableComparison } from '../store/copyStore.js';
import { openPostgresStore } from '../store/openPostgresStore.js';
import { redactUrl } from '../store/sql/PostgresDatabase.js';
import { openStore, type Store } from '../store/Store.js';
import { EXIT_FAILED } from './exitCodes.js';
import type { GlobalFlags } from './globalFlags.js';
import { storeConfigOf } from './ordersCommand.js';

export interface StoreMigrateFlags {
  to: 'postgres';
  url?: string;
  schema?: string;
  passwordEnv?: string;
  from?: string;
  replace: boolean;
  check: boolean;
}

/**
 * `erp-sync store migrate --to postgres`: copies the SQLite store (the configuration's, or
 * --from FILE) into a PostgreSQL schema (--url/--schema, or the configuration's PostgreSQL store)
 * and verifies the copy table by table; `--check` only compares. The password is read from the
 * environment and never shown: the URL is printed without it.
 */
export function storeMigrateCommand(flags: StoreMigrateFlags, command: Command): void {
  const configured = configuredStore(command, flags);
  const sourcePath = flags.from ?? (configured?.type !== 'postgres' ? configured?.path : undefined);
  if (!sourcePath)
    throw new ConfigError(
      'the configuration names a PostgreSQL store: give the SQLite store to copy with --from FILE',
    );
  const target = targetOf(flags, configured);
  const source = openStore(sourcePath, { mustExist: true });
  let copy: Store | undefined;
  try {
    copy = openPostgresStore(target);
    const where = `${redactUrl(target.url)} (schema ${target.schema})`;
    if (flags.check) {
      const comparison = compareStores(source.db, copy.db);
      process.stdout.write(`comparing ${sourcePath} with ${where}\n${formatComparison(comparison)}`);
      const differing = comparison.filter((table) => !table.equal);
      if (differing.length) {
        process.stderr.write(`erp-sync: ${mismatch(differing).message}\n`);
        process.exitCode = EXIT_FAILED;
        return;
      }
      process.stdout.write('the stores hold the same rows\n');
      return;
    }
    process.stdout.write(`copying ${sourcePath} to ${where}\n`);
    const comparison = copyStore(source.db, copy.db, { replace: flags.replace });
    const rows = comparison.reduce((sum, table) => sum + table.target.rows, 0);
    process.stdout.write(
      `${formatComparison(comparison)}copied and verified: ${comparison.length} tables, ${rows} rows.\n` +
        `Stop every daemon on the SQLite store, then set in the configuration:\n` +
        `  store: { type: postgres, url: ${redactUrl(target.url)}, schema: ${target.schema} }\n`,
    );
  } finally {
    copy?.close();
    source.close();
  }
}

/** The configuration's store (of `--account` with `accounts:`), unless both stores are named on the command line. */
function configuredStore(command: Command, flags: StoreMigrateFlags): StoreConfig | undefined {
  const file = command.optsWithGlobals<GlobalFlags>().config ?? process.env.ERP_SYNC_CONFIG;
  if (!file && flags.from && flags.url) return undefined;
  return storeConfigOf(command);
}

/** The PostgreSQL store to copy into: from the flags, checked as `store:` in a configuration is, else the configuration's. */
function targetOf(
  flags: StoreMigrateFlags,
  configured: StoreConfig | undefined,
): { url: string; schema: string; password: string | undefined } {
  let target: PostgresStoreConfig | undefined = configured?.type === 'postgres' ? configured : undefined;
  if (flags.url) {
    const parsed = storeConfigSchema.safeParse({
      type: 'postgres',
      url: flags.url,
      ...(flags.schema ? { schema: flags.schema } : {}),
      ...(flags.passwordEnv ? { passwordEnv: flags.passwordEnv } : {}),
    });
    // The issue's message only: never the URL, which may hold the password.
    if (!parsed.success)
      throw new ConfigError(
        `the PostgreSQL store to copy into: ${parsed.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ')}`,
      );
    target = parsed.data as PostgresStoreConfig;
  }
  if (!target)
    throw new ConfigError('name the PostgreSQL store to copy into: --url postgres://USER@HOST:PORT/DATABASE');
  return {
    url: target.url,
    schema: flags.url ? target.schema : (flags.schema ?? target.schema),
    password: process.env[target.passwordEnv ?? DEFAULT_STORE_PASSWORD_ENV],
  };
}

function formatComparison(comparison: readonly TableComparison[]): string {
  const width = Math.max(5, ...comparison.map((t) => t.table.length));
  const lines = [`${'table'.padEnd(width)}  ${'rows'.padStart(8)}  ${'copy'.padStart(8)}  checksum      `];
  for (const t of comparison)
    lines.push(
      `${t.table.padEnd(width)}  ${String(t.source.rows).padStart(8)}  ${String(t.target.rows).padStart(8)}  ` +
        `${t.source.checksum.slice(0, 12)}  ${t.equal ? 'same' : `DIFFERS (copy ${t.target.checksum.slice(0, 12)})`}`,
    );
  return `${lines.join('\n')}\n`;
}
