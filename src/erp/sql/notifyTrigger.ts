import type { ErpChange } from '../ErpWatch.js';

export interface NotifyTriggerOptions {
  /** The ERP's table whose changes the pipeline reads, optionally schema-qualified (`erp.stock_levels`). */
  table: string;
  /** The part of the ERP it holds: the payload of the notification. */
  change: ErpChange;
  /** `erp.listen.channel` of the configuration. */
  channel: string;
}

/** `"a"."b"` from `a.b`: each part quoted as an identifier. */
function quoteName(name: string): string {
  return name
    .split('.')
    .map((part) => `"${part.replace(/"/g, '""')}"`)
    .join('.');
}

/**
 * PostgreSQL (11 or later) DDL for the integrator to run: a statement-level trigger on the table
 * that sends `pg_notify(channel, change)` once per INSERT, UPDATE, DELETE or TRUNCATE statement.
 * A notification is delivered at COMMIT (never for a rolled-back change), and PostgreSQL folds the
 * same notification of one transaction into one. Idempotent: run it again after a change.
 */
export function notifyTriggerSql(options: NotifyTriggerOptions): string {
  const fn = `erp_sync_notify_${options.change.toLowerCase()}`;
  const trigger = `erp_sync_notify_${options.change.toLowerCase()}`;
  const table = quoteName(options.table);
  const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;
  return [
    `-- erp-sync: announce changes of ${options.table} (${options.change}) on channel ${options.channel}`,
    `-- The daemon LISTENs with erp.listen set (client pg) and runs the pipeline at once.`,
    `CREATE OR REPLACE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $erp_sync$`,
    `BEGIN`,
    `  PERFORM pg_notify(${literal(options.channel)}, ${literal(options.change)});`,
    `  RETURN NULL;`,
    `END`,
    `$erp_sync$;`,
    `DROP TRIGGER IF EXISTS ${trigger} ON ${table};`,
    `CREATE TRIGGER ${trigger}`,
    `  AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ${table}`,
    `  FOR EACH STATEMENT EXECUTE FUNCTION ${fn}();`,
    '',
  ].join('\n');
}
