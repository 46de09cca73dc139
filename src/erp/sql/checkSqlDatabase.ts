import type { Knex } from 'knex';
import { describeError } from '../../domain/errors.js';
import type { AdapterCheck } from '../ErpAdapter.js';
import { QUERY_PARAMETERS, type SqlClient, type SqlErpConfig, type SqlQueryName } from './sqlConfigSchema.js';
import { databaseClock, dayIn, sinceBinding, type DatabaseClock } from './sqlReadMark.js';
import { toSqlError } from './SqlErpError.js';
import type { SqlOrderStaging } from './SqlOrderStaging.js';
import type { Bindings } from './streamQuery.js';

/** Values a run binds, for `check` to bind the same types (nothing is written with them). */
function sampleBindings(config: SqlErpConfig, name: SqlQueryName, clock: DatabaseClock | null): Bindings {
  const bindings: Bindings = {};
  for (const parameter of QUERY_PARAMETERS[name]) {
    if (parameter === 'since' && clock)
      bindings.since = sinceBinding(
        config.client,
        Date.parse(clock.now),
        clock.offsetMinutes,
        clock.offsetMinutes,
      );
    else if (parameter === 'today' && clock)
      bindings.today = config.timeZone === 'database' ? clock.today : dayIn(config.timeZone, clock.now);
    else bindings[parameter] = SAMPLE[parameter] ?? (parameter === 'after' ? config.initialCheckpoint : '0');
  }
  return bindings;
}

/** Sample values of the order and feedback parameters; ids as text that reads as a number too. */
const SAMPLE: Record<string, string | number> = {
  sku: 'ERP-SYNC-CHECK',
  order_id: 0,
  platform_order_id: 0,
  kind: 'shipped',
  status: 'shipped',
  awb_courier: 'check',
  invoice_series: 'CHK',
};

/**
 * Runs one configured query or statement the way the database checks it without reading rows or
 * writing any: EXPLAIN on PostgreSQL and MySQL/MariaDB (the database binds the parameters and
 * checks the role's privilege on every table and column it names), EXPLAIN QUERY PLAN on SQLite
 * (it compiles). SQL Server has no EXPLAIN a least-privileged login may run: there the statement
 * runs for real with SET ROWCOUNT 1 in a transaction that is rolled back.
 */
async function probeSql(db: Knex, client: SqlClient, sql: string, bindings: Bindings): Promise<void> {
  const text = sql.trim().replace(/;\s*$/, '');
  if (client !== 'mssql') {
    await db.raw(`${client === 'sqlite' ? 'explain query plan' : 'explain'} ${text}`, bindings);
    return;
  }
  const trx = await db.transaction();
  try {
    await trx.raw('set rowcount 1');
    await trx.raw(text, bindings);
  } finally {
    await trx.raw('set rowcount 0').catch(() => undefined);
    await trx.rollback();
  }
}

/**
 * `erp-sync check` for a SQL ERP: proves what a run will need, each on a line. The login; every
 * configured query and statement, run as the database checks it (probeSql) with the parameters a
 * run binds; the staging tables present, and an order written into them and read back in a
 * transaction that is rolled back (INSERT, SELECT, PostgreSQL's USAGE on the id sequences). A
 * failure names the database, the query or table, and the database's reason (the missing
 * privilege); never the password.
 */
export async function checkSqlDatabase(
  db: Knex,
  config: SqlErpConfig,
  database: string,
  staging: SqlOrderStaging,
): Promise<AdapterCheck> {
  const lines = [database];
  try {
    await db.raw('select 1 as ok');
  } catch (error) {
    return { ok: false, details: toSqlError(error, 'connecting', database).message };
  }
  let ok = true;
  const configured = [
    ...Object.entries(config.queries).map(([name, sql]) => ({ kind: 'query', name, sql })),
    ...Object.entries(config.statements).map(([name, sql]) => ({ kind: 'statement', name, sql })),
  ].filter((item): item is { kind: string; name: string; sql: string } => Boolean(item.sql));
  if (configured.length === 0) lines.push('queries: none configured');
  // :since and :today as a run binds them: from the database's clock.
  const clocked = configured.some(({ name }) =>
    QUERY_PARAMETERS[name as SqlQueryName].some((p) => p === 'since' || p === 'today'),
  );
  let clock: DatabaseClock | null = null;
  if (clocked) {
    try {
      clock = await databaseClock(db, config.client);
    } catch (error) {
      ok = false;
      lines.push(`database clock: FAILS: ${describeError(error)}`);
    }
  }
  for (const { kind, name, sql } of configured) {
    try {
      await probeSql(db, config.client, sql, sampleBindings(config, name as SqlQueryName, clock));
      lines.push(`${kind} ${name}: runs`);
    } catch (error) {
      ok = false;
      lines.push(`${kind} ${name}: FAILS: ${toSqlError(error, `the ${name} ${kind}`, database).message}`);
    }
  }
  const tables = [config.staging.orders, config.staging.lines, config.staging.changes].map((t) => t.table);
  const missing: string[] = [];
  for (const table of tables) {
    if (!(await db.schema.hasTable(table).catch(() => false))) missing.push(table);
  }
  if (missing.length) {
    ok = false;
    lines.push(
      `staging tables: NOT FOUND ${missing.join(', ')}: missing (erp-sync erp init-staging --config FILE --apply), or this role has no privilege on them`,
    );
  } else {
    try {
      await staging.probeWrites();
      lines.push(`staging tables ${tables.join(', ')}: an order written, read back and rolled back`);
    } catch (error) {
      ok = false;
      lines.push(`staging tables: FAIL: ${describeError(error)}`);
    }
  }
  return { ok, details: lines.join('\n') };
}
