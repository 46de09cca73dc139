import { Command, Option } from 'commander';
import { AUDIT_PIPELINES, PIPELINE_ORDER } from '../domain/pipelineNames.js';
import { VERSION } from '../version.js';
import { integer, oneOf, parseLimit, pipelineList, positiveSeconds } from './optionParsers.js';

/**
 * A command's action whose module is imported when the command runs: `--version`, `--help` and
 * every other command never load it (nor the libraries it needs: the API client, Redis, the
 * store, the sandbox's server). This module itself loads commander and the option parsers only.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- commander passes arguments, flags and the command
function lazy<A extends any[]>(load: () => Promise<(...args: A) => unknown>): (...args: A) => Promise<void> {
  return async (...args: A) => {
    await (
      await load()
    )(...args);
  };
}

/** The erp-sync command line: every command with its arguments, options and help. */
export function createProgram(): Command {
  const program = new Command()
    .name('erp-sync')
    .description('Keeps an ERP and a Commerce Management Service account (API v2) in step.')
    .version(VERSION)
    .option('-c, --config <file>', 'configuration file (YAML); default: env ERP_SYNC_CONFIG')
    .option(
      '--account <name>',
      'the account of a configuration with `accounts:` (every command; status and jobs cover every account without it)',
    )
    .showHelpAfterError()
    // Commander's own exit would be 1, the code of a failed pipeline: usage errors throw instead.
    .exitOverride();

  program
    .command('sandbox')
    .description(
      'Run the API v2 sandbox: a complete local implementation of the Commerce Management Service API',
    )
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port (0 picks a free one)', integer('--port', 0, 65535), 8787)
    .option('--db <path>', "SQLite database: ':memory:' or a file (reused if it exists)", ':memory:')
    .option('--seed <kind>', 'demo | empty', oneOf(['demo', 'empty']), 'demo')
    .option(
      '--faults <spec>',
      'fault spec, e.g. "latency=20-200,error_rate=0.05,rate_limit=50/s,drop_rate=0.01,stall_rate=0.01"',
    )
    .option('--fault-seed <n>', 'seed for reproducible faults', integer('--fault-seed', 0))
    .option('--log-requests <file>', 'append one JSON line per request to FILE')
    .option(
      '--orders-order <order>',
      'GET /orders order: desc (newest first) | asc',
      oneOf(['desc', 'asc']),
      'desc',
    )
    .option(
      '--extra-products <n>',
      'add N bulk products BULK-000001.. to the primary company',
      integer('--extra-products', 0),
    )
    .option(
      '--bulk-max <n>',
      'most items a bulk request may carry (default 1000); fewer stands in for a stricter platform',
      integer('--bulk-max', 1, 1000),
    )
    .option('--log-level <level>', 'sandbox log level (stderr)', 'info')
    .action(lazy(async () => (await import('./sandboxCommand.js')).sandboxCommand));

  program
    .command('run-once')
    .description('run the pipelines once, inline (no Redis), and print a summary per pipeline')
    .option('--only <pipelines>', `comma-separated subset of: ${PIPELINE_ORDER.join(', ')}`, pipelineList)
    .option('--full', 'ignore fingerprints and send everything', false)
    .option('--dry-run', 'send and write nothing; show what would be sent', false)
    .option('--json', 'print the summaries as JSON', false)
    .action(lazy(async () => (await import('./runOnceCommand.js')).runOnceCommand));

  program
    .command('rejects')
    .description('items refused by the ERP adapter, the validation or the platform, with reason and place')
    .addOption(new Option('-p, --pipeline <name>', 'only this pipeline').choices(PIPELINE_ORDER))
    .option('--all', 'include resolved rejects', false)
    .option('--limit <n>', 'at most this many', parseLimit)
    .option('--json', 'print as JSON', false)
    .option('--store <file>', 'store file (default: store.path of the configuration)')
    .action(lazy(async () => (await import('./storeCommands.js')).rejectsCommand));

  program
    .command('links')
    .description(
      'product links (SKU / variant SKU <-> platform product / variant), or order links with --orders',
    )
    .option('--orders', 'list order links (platform order id <-> ERP reference) instead', false)
    .option('--limit <n>', 'with --orders: at most this many', parseLimit, 100)
    .option('--json', 'print as JSON', false)
    .option('--store <file>', 'store file (default: store.path of the configuration)')
    .action(lazy(async () => (await import('./storeCommands.js')).linksCommand));

  const store = program.command('store').description('manage the local store');
  store
    .command('reset')
    .description('delete the store to start over (asks on a terminal; --yes to skip the question)')
    .option('--yes', 'do not ask', false)
    .option('--store <file>', 'store file (default: store.path of the configuration)')
    .action(lazy(async () => (await import('./storeCommands.js')).storeResetCommand));
  store
    .command('migrate')
    .description(
      'copy the SQLite store into a PostgreSQL store and verify the copy (row counts and a checksum per table)',
    )
    .requiredOption('--to <type>', 'the kind of store to copy into: postgres', oneOf(['postgres']))
    .option(
      '--url <url>',
      'postgres://USER@HOST:PORT/DATABASE, without the password (default: the configured store)',
    )
    .option('--schema <name>', 'the schema of the store (default: the configured one, or erp_sync)')
    .option('--password-env <name>', 'the environment variable holding the password (default: PGPASSWORD)')
    .option('--from <file>', 'the SQLite store to copy (default: store.path of the configuration)')
    .option('--replace', 'empty a target that holds rows before copying (else it is refused)', false)
    .option('--check', 'copy nothing: compare the two stores table by table', false)
    .action(lazy(async () => (await import('./storeMigrateCommand.js')).storeMigrateCommand));

  const orders = program.command('orders').description('platform orders the ERP has not taken yet');
  orders
    .command('parked')
    .description('orders parked for review, with the reason the ERP gave')
    .option('--json', 'print as JSON', false)
    .action(lazy(async () => (await import('./ordersCommand.js')).ordersParkedCommand));
  orders
    .command('retry')
    .description('retry parked orders now (all, or the given platform order ids), then run the orders poll')
    .argument('[ids...]', 'platform order ids')
    .action(lazy(async () => (await import('./ordersCommand.js')).ordersRetryCommand));

  program
    .command('status')
    .description('last runs per pipeline, open rejects, parked orders, order links and cursors')
    .option('--json', 'print the report as JSON', false)
    .action(lazy(async () => (await import('./statusCommand.js')).statusCommand));

  program
    .command('check')
    .description('check the configuration, the API key (GET /account), the ERP, the store and Redis')
    .option('--json', 'print as JSON', false)
    .action(lazy(async () => (await import('./checkCommand.js')).checkCommand));

  program
    .command('demo')
    .description(
      'the sandbox, a sample ERP folder and the daemon (with Redis) or every pipeline inline (without), narrated',
    )
    .option('--keep', 'keep the work folder (inline: and the sandbox running until Ctrl-C)', false)
    .option('--dir <folder>', 'work folder to use and keep (default: a temporary one, removed afterwards)')
    .option(
      '--for <seconds>',
      'end by itself this long after the narrated steps (default: at Ctrl-C)',
      positiveSeconds,
    )
    .action(lazy(async () => (await import('./demoCommand.js')).demoCommand));

  program
    .command('audit')
    .description(
      'compare the ERP and the platform (read only) and list every difference; exit 0 in step, 1 drift, 2 could not finish (or --fix failed)',
    )
    .option('--pipeline <pipelines>', `comma-separated subset of: ${AUDIT_PIPELINES.join(', ')}`)
    .option('--json', 'print the report as JSON', false)
    .option('--max <n>', 'list at most N findings (all are counted)', '50')
    .option(
      '--fix',
      'then push exactly the stock and price items that heal the drift: enqueued when a daemon runs, else inline',
      false,
    )
    .option('--inline', 'with --fix: push from this process even when a daemon runs', false)
    .option('--wait', 'with --fix through the daemon: wait until it has sent the pushes', false)
    .action(lazy(async () => (await import('./auditCommand.js')).auditCommand));

  const explain = program
    .command('explain')
    .description('the whole story of one SKU or one order, and a verdict (read only)');
  explain
    .command('sku <sku>')
    .description(
      'ERP value, acknowledged value, platform value, held units, buffer, rejects, runs, queued or failed jobs; exit 0 in step, 1 not, 2 could not read',
    )
    .option('--json', 'print the story as JSON', false)
    .action(lazy(async () => (await import('./explainCommand.js')).explainSkuCommand));
  explain
    .command('order <id>')
    .description(
      'platform status, ERP reference and where the ERP holds it, parked reason, changes and events; exit 0 in step, 1 not, 2 could not read',
    )
    .option('--json', 'print the story as JSON', false)
    .action(lazy(async () => (await import('./explainCommand.js')).explainOrderCommand));

  const erp = program.command('erp').description('ERP-side tools');
  erp
    .command('init-staging')
    .description(
      'print the SQL staging tables (orders, lines, changes) for a database, or create them with --apply',
    )
    .option(
      '--client <client>',
      'database: pg, mysql, mssql or sqlite (default: erp.client of the configuration)',
    )
    .option('--apply', 'create the tables in the configured database (erp.type: sql)')
    .action(lazy(async () => (await import('./erpCommand.js')).erpInitStagingCommand));
  erp
    .command('notify-trigger')
    .description('print the PostgreSQL trigger that announces changes of a table to the daemon (erp.listen)')
    .requiredOption(
      '--table <table>',
      'the ERP table whose changes the pipeline reads (schema.table allowed)',
    )
    .requiredOption(
      '--pipeline <pipeline>',
      'the pipeline that reads it: stock, prices, products, feedback, erp-orders',
    )
    .option('--channel <channel>', 'the LISTEN channel (default: erp.listen.channel, else erp_sync)')
    .action(lazy(async () => (await import('./erpCommand.js')).erpNotifyTriggerCommand));

  program
    .command('accounts')
    .description('the accounts of the configuration: name, API base URL, store and queue prefix (no key)')
    .option('--json', 'print as JSON', false)
    .action(lazy(async () => (await import('./accountsCommand.js')).accountsCommand));

  program
    .command('start')
    .description('run the daemon in the foreground: schedules, queues (Redis) and the ops server')
    .action(lazy(async () => (await import('./startCommand.js')).startCommand));

  program
    .command('sync')
    // Every pipeline has a schedule in the daemon (SCHEDULED_PIPELINES is PIPELINE_ORDER).
    .argument('<pipeline>', `${PIPELINE_ORDER.join(', ')} or all`)
    .description(
      'enqueue a run in the running daemon (the manual resync); --inline runs it here without Redis',
    )
    .option('--full', 'ignore fingerprints and send everything', false)
    .option('--wait', 'show progress and wait until the run is done (exit 1 if it failed)', false)
    .option('--json', 'print JSON', false)
    .option('--inline', 'run in this process without Redis, as run-once does', false)
    .action(lazy(async () => (await import('./syncCommand.js')).syncCommand));

  const jobs = program
    .command('jobs')
    .description("the daemon's failed jobs (kept for queue.keepFailedSeconds)");
  jobs
    .command('failed')
    .description('list failed jobs with their reason')
    .option('--json', 'print as JSON', false)
    .action(lazy(async () => (await import('./jobsCommand.js')).jobsFailedCommand));
  jobs
    .command('retry')
    .argument('[ids...]', 'job ids (plain or QUEUE/ID); none: every failed job')
    .description('put failed jobs back in the queue')
    .option('--json', 'print as JSON', false)
    .action(lazy(async () => (await import('./jobsCommand.js')).jobsRetryCommand));

  return program;
}
