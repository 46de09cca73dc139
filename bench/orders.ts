/**
 * npm run bench:orders [-- --orders 10000] [-- --record]
 *
 * The sandbox runs in this process (empty seed, a few products). N new orders are created through
 * it (POST /orders, 16 at a time), then `erp-sync run-once --only orders --json` runs as a child
 * process with the file adapter: its wall time and peak RSS (VmHWM) are the daemon's alone, its
 * requests are counted in the sandbox's request log. Then the cost of quiet polls (nothing new),
 * with the list newest-first and oldest-first. The sandbox's list records are whole orders, so an
 * import costs its list pages only. Last, the outbox writes alone (the adapter's own atomic writer,
 * with and without fsync) for the same number of files, to show what bounds the import.
 * --record rewrites the "## Orders" section of bench/RESULTS.md.
 */
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeConfigFile } from '../src/config.js';
import { writeNewFileAtomic } from '../src/erp/file/orders/atomicFile.js';
import { startSandbox, type Sandbox } from '../src/sandbox/index.js';
import { measureRunOnce, type MeasuredRun } from './support/measureRunOnce.js';
import { recordSection } from './support/recordSection.js';
import { hasFlag, numberArg } from './support/benchArgs.js';
import { machineLine } from './support/machineLine.js';
import { createPlatformOrders } from './support/createPlatformOrders.js';
import { timeOutboxWrites, writeNewFileNoSync } from './support/timeOutboxWrites.js';

const ORDERS = numberArg('orders', 10_000);
const CONCURRENCY = numberArg('concurrency', 4);
const RECORD = hasFlag('record');

interface Measured extends MeasuredRun {
  requests: number;
}

async function runOrders(sandbox: Sandbox, configFile: string): Promise<Measured> {
  sandbox.requestLog.clear();
  const run = await measureRunOnce(['--only', 'orders', '--config', configFile]);
  return { ...run, requests: sandbox.requestLog.entries().length };
}

function writeConfig(dir: string, name: string, sandbox: Sandbox): string {
  const file = join(dir, `${name}.yaml`);
  mkdirSync(join(dir, name), { recursive: true }); // the ERP drop folder must exist
  return writeConfigFile(file, {
    api: { baseUrl: sandbox.url, apiKey: sandbox.keys.primary },
    erp: { type: 'file', path: join(dir, name) },
    store: { path: join(dir, `${name}.db`) },
    orders: { concurrency: CONCURRENCY },
    log: { level: 'warn' },
  });
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'erp-sync-bench-orders-'));
  const rows: string[] = [];
  const row = (scenario: string, m: Measured, files: number | string) =>
    rows.push(
      `| ${scenario} | ${m.summary.extra.imported ?? 0} | ${files} | ${m.requests} | ${m.summary.seconds.toFixed(2)} | ${m.wallSeconds.toFixed(2)} | ${m.peakRssMb.toFixed(0)} |`,
    );
  let createSeconds = 0;
  let importSeconds = 0;
  const writes: string[] = [];
  try {
    const sandbox = await startSandbox({ port: 0, seed: 'empty', extraProducts: 5 });
    try {
      process.stderr.write(`creating ${ORDERS} orders through the sandbox...\n`);
      createSeconds = await createPlatformOrders(sandbox, ORDERS);
      const config = writeConfig(dir, 'big', sandbox);
      process.stderr.write('importing them into the file outbox...\n');
      const full = await runOrders(sandbox, config);
      const outbox = join(dir, 'big', 'outbox', 'orders');
      row(`import ${ORDERS} new orders`, full, readdirSync(outbox).length);
      importSeconds = full.summary.seconds;
      const sample = readFileSync(
        join(
          outbox,
          readdirSync(outbox).find((n) => n.endsWith('.json'))!,
        ),
        'utf8',
      );
      process.stderr.write('timing the outbox writes alone...\n');
      const synced = await timeOutboxWrites(
        join(dir, 'fsync'),
        ORDERS,
        sample,
        writeNewFileAtomic,
        CONCURRENCY,
      );
      const unsynced = await timeOutboxWrites(
        join(dir, 'nosync'),
        ORDERS,
        sample,
        writeNewFileNoSync,
        CONCURRENCY,
      );
      writes.push(
        `| writeNewFileAtomic (on disk: O_SYNC), ${ORDERS} files | ${synced.toFixed(2)} | ${((synced / ORDERS) * 1000).toFixed(2)} | ${((synced / importSeconds) * 100).toFixed(0)}% |`,
        `| same without fsync | ${unsynced.toFixed(2)} | ${((unsynced / ORDERS) * 1000).toFixed(2)} | ${((unsynced / importSeconds) * 100).toFixed(0)}% |`,
      );
      const quiet = await runOrders(sandbox, config);
      row('quiet poll, newest-first list', quiet, '-');
    } finally {
      await sandbox.close();
    }
    const asc = await startSandbox({ port: 0, seed: 'demo', ordersOrder: 'asc' });
    try {
      const config = writeConfig(dir, 'asc', asc);
      const first = await runOrders(asc, config);
      row(
        'import of the demo seed, oldest-first list',
        first,
        readdirSync(join(dir, 'asc', 'outbox', 'orders')).length,
      );
      const quiet = await runOrders(asc, config);
      row('quiet poll, oldest-first list', quiet, '-');
    } finally {
      await asc.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  const section = [
    '## Orders',
    '',
    `Command: \`npm run bench:orders\` (orders.concurrency ${CONCURRENCY}). ` + machineLine(),
    `The sandbox runs in the bench process; ${ORDERS} orders were first created through it with POST /orders`,
    `(16 at a time, ${createSeconds.toFixed(1)} s, ${(ORDERS / createSeconds).toFixed(0)} orders/s). Each scenario is`,
    '`erp-sync run-once --only orders --json` as a child process with the file adapter (one JSON file per order,',
    'written atomically with fsync): "pipeline s" is the pipeline\'s own time, "wall s" adds process start-up (tsx),',
    "peak RSS is the child's VmHWM, requests are counted in the sandbox's request log. The sandbox lists whole",
    'orders (lines and totals), so the import reads its list pages only: no `GET /orders/{id}` per order (one',
    'per order only against a platform whose list carries no lines).',
    '',
    '| scenario | imported | outbox files | requests | pipeline s | wall s | peak RSS MB |',
    '|---|---|---|---|---|---|---|',
    ...rows,
    '',
    `Load average (1 min) when the bench ended: ${loadavg()[0]!.toFixed(1)} (the machine is shared; times vary with it).`,
    '',
    `What bounds the import: the outbox writes alone, the same ${ORDERS} files (${CONCURRENCY} at a time, one of the`,
    "imported files as content, the adapter's own atomic writer), against the import's pipeline time:",
    '',
    '| outbox writes | s | ms per file | of the import |',
    '|---|---|---|---|',
    ...writes,
    '',
    'With the list carrying the lines the requests no longer bound the import (100 for 10,000 orders, about',
    'one list page per 100 orders); it is bound by local per-order work, of which the fsync of each outbox file',
    "is the largest measured part (compare the two lines above). The rest (the adapter's already-imported",
    'check, one store transaction per order, encoding) is not timed separately; all of it competes for the',
    'same shared cores, so its share moves with the load.',
    '',
    'Aim: a quiet poll costs at most 2 requests (1 when the list is newest-first: page 1 is all known;',
    '2 when oldest-first: page 1 tells the order, then the last page is all known).',
    '',
  ].join('\n');
  process.stdout.write(`\n${section}\n`);
  if (RECORD) recordSection('## Orders', section);
}

await main();
