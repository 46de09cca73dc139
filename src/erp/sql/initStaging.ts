import { ErpSyncError } from '../../domain/errors.js';
import type { Logger } from '../../logger.js';
import { connectSql, sqlBuilder } from './connectSql.js';
import { SQL_CLIENTS, sqlErpConfigSchema, type SqlClient, type SqlErpConfig } from './sqlConfigSchema.js';
import { stagingDdl, stagingSchema } from './stagingTables.js';

/** A request the command line cannot carry out as given (exit 64). */
export class StagingUsageError extends Error {}

export interface InitStagingRequest {
  client?: string;
  apply?: boolean;
  /** The `erp` slice of the configuration given, when it is a SQL ERP. */
  config?: SqlErpConfig;
  /** A configuration was given but it is not a SQL ERP. */
  notSql?: string;
}

/**
 * `erp-sync erp init-staging`: the staging tables' DDL for a database (with the configured
 * names when a configuration is given), or, with `apply`, the tables created in it. Returns the
 * text to print.
 */
export async function initStaging(request: InitStagingRequest, logger: Logger): Promise<string> {
  const { client: asked, apply, config } = request;
  if (asked !== undefined && !(SQL_CLIENTS as readonly string[]).includes(asked)) {
    throw new StagingUsageError(`--client must be one of ${SQL_CLIENTS.join(', ')}, got "${asked}"`);
  }
  if (request.notSql)
    throw new StagingUsageError(`${request.notSql} does not configure a SQL ERP (erp.type: sql)`);
  if (apply && !config)
    throw new StagingUsageError('--apply needs a configuration with erp.type: sql (--config FILE)');
  if (config && asked && asked !== config.client) {
    throw new StagingUsageError(
      `--client ${asked} differs from erp.client ${config.client} of the configuration`,
    );
  }
  const client = (asked ?? config?.client) as SqlClient | undefined;
  if (!client)
    throw new StagingUsageError(`say which database: --client ${SQL_CLIENTS.join('|')} (or --config FILE)`);
  const staging =
    config?.staging ?? sqlErpConfigSchema().parse({ type: 'sql', client, connection: {} }).staging;
  if (!apply) return `-- erp-sync staging tables for ${client}\n${stagingDdl(sqlBuilder(client), staging)}\n`;

  const db = connectSql(config!, logger);
  try {
    const tables = [staging.orders.table, staging.lines.table, staging.changes.table];
    const present: string[] = [];
    for (const table of tables) if (await db.schema.hasTable(table)) present.push(table);
    if (present.length === tables.length) return `staging tables already there: ${tables.join(', ')}\n`;
    if (present.length) {
      throw new ErpSyncError(
        'erp_query',
        `some staging tables exist (${present.join(', ')}) and others do not: create the rest by hand (erp-sync erp init-staging prints them)`,
      );
    }
    await stagingSchema(db, staging);
    return `created ${tables.join(', ')}\n`;
  } finally {
    await db.destroy();
  }
}
