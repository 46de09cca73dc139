/**
 * npm run bench:sandbox-orders [-- --orders 10000] [-- --rounds 3]
 *
 * The sandbox answering the daemon's orders poll: it runs in this process on a file database with
 * N orders created through POST /orders (500 customers, as in the orders and daemon benches), then
 * every page of `GET /orders?per_page=100` is read in turn, sequentially (keep-alive). Each round
 * times the walk once without and once with the `orders_customer` index (dropped and recreated
 * through a second connection), because a page's customers carry `orders_count`, one COUNT per
 * customer. Reports ms per page (wall) and the process's CPU ms per page, with the load average.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { startSandbox } from '../src/sandbox/index.js';
import { numberArg } from './support/benchArgs.js';
import { createPlatformOrders } from './support/createPlatformOrders.js';
import { machineLine } from './support/machineLine.js';

const ORDERS = numberArg('orders', 10_000);
const ROUNDS = numberArg('rounds', 3);
const PER_PAGE = 100;

async function walkPages(
  url: string,
  key: string,
): Promise<{ pages: number; wallMs: number; cpuMs: number }> {
  const pages = Math.ceil(ORDERS / PER_PAGE);
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let page = 1; page <= pages; page++) {
    const res = await fetch(`${url}/orders?per_page=${PER_PAGE}&page=${page}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    if (res.status !== 200) throw new Error(`GET /orders page ${page}: HTTP ${res.status}`);
    await res.arrayBuffer();
  }
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return { pages, wallMs, cpuMs: (used.user + used.system) / 1000 };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'erp-sync-bench-sandbox-orders-'));
  const file = join(dir, 'sandbox.db');
  const sandbox = await startSandbox({ port: 0, seed: 'empty', extraProducts: 5, db: file });
  const admin = new Database(file);
  try {
    process.stderr.write(`creating ${ORDERS} orders through the sandbox...\n`);
    await createPlatformOrders(sandbox, ORDERS);
    const rows: string[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      for (const indexed of [false, true]) {
        admin.exec(
          indexed
            ? 'CREATE INDEX IF NOT EXISTS orders_customer ON orders(customer_id)'
            : 'DROP INDEX IF EXISTS orders_customer',
        );
        const m = await walkPages(sandbox.url, sandbox.keys.primary);
        rows.push(
          `| ${round} | ${indexed ? 'yes' : 'no'} | ${m.pages} | ${(m.wallMs / m.pages).toFixed(2)} | ${(m.cpuMs / m.pages).toFixed(2)} | ${loadavg()[0]!.toFixed(2)} |`,
        );
      }
    }
    process.stdout.write(
      [
        `Command: \`npm run bench:sandbox-orders -- --orders ${ORDERS} --rounds ${ROUNDS}\`. ${machineLine()}`,
        '',
        '| round | orders_customer index | pages | ms per page | CPU ms per page | load (1 min) |',
        '|---|---|---|---|---|---|',
        ...rows,
        '',
      ].join('\n'),
    );
  } finally {
    admin.close();
    await sandbox.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
