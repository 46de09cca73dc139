import type { Command } from 'commander';
import { loadConfig } from '../config.js';
import { ErpSyncError } from '../domain/errors.js';
import {
  SQL_CLIENTS,
  sqlErpConfigSchema,
  type SqlClient,
  type SqlErpConfig,
} from '../erp/sql/sqlConfigSchema.js';
import { createLogger } from '../logger.js';

const EXIT_USAGE = 64;

interface InitStagingOptions {
  client?: string;
  apply?: boolean;
}

/** `erp-sync erp init-staging`: the SQL adapter's example staging tables, printed or created. */
export function registerErpCommand(program: Command): void {
  const erp = program.command('erp').description('ERP-side tools');
  erp
    .command('init-staging')
    .description(
      'print the SQL staging tables (orders, lines, changes) for a database, or create them with --apply',
    )
    .option(
      '--client <client>',
      `database: ${SQL_CLIENTS.join(', ')} (default: erp.client of the configuration)`,
    )
    .option('--apply', 'create the tables in the configured database (erp.type: sql)')
    .action(async (options: InitStagingOptions, command: Command) => {
      const file = command.optsWithGlobals<{ config?: string }>().config ?? process.env.ERP_SYNC_CONFIG;
      await initStaging(file, options);
    });
}

async function initStaging(file: string | undefined, options: InitStagingOptions): Promise<void> {
  if (options.client !== undefined && !(SQL_CLIENTS as readonly string[]).includes(options.client)) {
    return usage(`--client must be one of ${SQL_CLIENTS.join(', ')}, got "${options.client}"`);
  }
  const config = file ? sqlSlice(file) : undefined;
  if (file && !config) return usage(`${file} does not configure a SQL ERP (erp.type: sql)`);
  if (options.apply && !config)
    return usage('--apply needs a configuration with erp.type: sql (--config FILE)');
  if (config && options.client && options.client !== config.client) {
    return usage(`--client ${options.client} differs from erp.client ${config.client} of the configuration`);
  }
  const client = (options.client ?? config?.client) as SqlClient | undefined;
  if (!client) return usage(`say which database: --client ${SQL_CLIENTS.join('|')} (or --config FILE)`);
  const staging =
    config?.staging ?? sqlErpConfigSchema.parse({ type: 'sql', client, connection: {} }).staging;

  const { sqlBuilder, connectSql } = await import('../erp/sql/connectSql.js');
  const { stagingDdl, stagingSchema } = await import('../erp/sql/stagingTables.js');
  if (!options.apply) {
    process.stdout.write(
      `-- erp-sync staging tables for ${client}\n${stagingDdl(sqlBuilder(client), staging)}\n`,
    );
    return;
  }
  const db = connectSql(config!, createLogger({ level: 'warn' }));
  try {
    const tables = [staging.orders.table, staging.lines.table, staging.changes.table];
    const present = [];
    for (const table of tables) if (await db.schema.hasTable(table)) present.push(table);
    if (present.length === tables.length) {
      process.stdout.write(`staging tables already there: ${tables.join(', ')}\n`);
      return;
    }
    if (present.length) {
      throw new ErpSyncError(
        'erp_query',
        `some staging tables exist (${present.join(', ')}) and others do not: create the rest by hand (erp-sync erp init-staging prints them)`,
      );
    }
    await stagingSchema(db, staging);
    process.stdout.write(`created ${tables.join(', ')}\n`);
  } finally {
    await db.destroy();
  }
}

/** The `erp` slice of a configuration, without needing the API settings. */
function sqlSlice(file: string): SqlErpConfig | undefined {
  const config = loadConfig({
    file,
    overrides: { api: { baseUrl: 'http://localhost/api/v2', apiKey: 'unused-by-erp-commands' } },
  });
  return config.erp.type === 'sql' ? config.erp : undefined;
}

function usage(message: string): void {
  process.stderr.write(`erp-sync erp init-staging: ${message}\n`);
  process.exitCode = EXIT_USAGE;
}
