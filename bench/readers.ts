/**
 * npm run bench:readers [-- --rows 500000] [-- --only csv,pg,mysql]
 *
 * How fast the ERP readers stream a plain stock list (SKU and quantity) in this process, as the
 * pipelines take it (`erp.stock().groups()`: read, parse, map, validate the key), in rows per
 * second of wall and CPU time. Aim: at least 500k rows/s.
 * - csv: the file adapter over `stock.csv` (`sku,quantity`).
 * - pg, mysql: the SQL adapter over a table of a database of its own on the local PostgreSQL
 *   (127.0.0.1:5432, user postgres) and MariaDB (127.0.0.1:3306, user root), dropped after;
 *   `select code as sku, on_hand as quantity from stock order by code`. The database server
 *   shares the machine: its CPU is not in this process's CPU time, but it is in the wall time.
 */
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfig } from '../src/config.js';
import { createErpAdapter } from '../src/erp/createErpAdapter.js';
import { connectSql } from '../src/erp/sql/connectSql.js';
import { sqlErpConfigSchema } from '../src/erp/sql/sqlConfigSchema.js';
import { silentLogger } from '../src/logger.js';
import { numberArg, stringArg } from './support/benchArgs.js';
import { machineLine } from './support/machineLine.js';

const ROWS = numberArg('rows', 500_000);
const ONLY = (stringArg('only') ?? 'csv,pg,mysql').split(',');
const SERVERS = {
  pg: { host: '127.0.0.1', port: 5432, user: 'postgres', admin: 'test' },
  mysql: { host: '127.0.0.1', port: 3306, user: 'root', admin: 'test' },
} as const;
const DATABASE = `erp_sync_bench_readers_${process.pid}`;
const QUERY = 'select code as sku, on_hand as quantity from stock order by code';

type SqlClient = keyof typeof SERVERS;

const sku = (n: number): string => `BULK-${String(n).padStart(7, '0')}`;

interface Measured {
  rows: number;
  bad: number;
  wall: number;
  cpu: number;
}

/** Reads `erp.stock()` to the end as the pipelines do (in groups), timing this process. */
async function measure(erpSection: Record<string, unknown>): Promise<Measured> {
  const config = parseConfig({
    api: { baseUrl: 'http://127.0.0.1:1/api/v2', apiKey: 'unused' },
    erp: erpSection,
  });
  const erp = await createErpAdapter(config.erp, silentLogger());
  await erp.open();
  const cpu = process.cpuUsage();
  const started = performance.now();
  let rows = 0;
  let bad = 0;
  for await (const group of erp.stock().groups()) {
    for (const row of group) {
      rows += 1;
      if (!row.ok) bad += 1;
    }
  }
  const wall = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  await erp.close();
  return { rows, bad, wall, cpu: (used.user + used.system) / 1e6 };
}

async function csv(dir: string): Promise<Measured> {
  const out = createWriteStream(join(dir, 'stock.csv'));
  out.write('sku,quantity\n');
  for (let n = 1; n <= ROWS; n++) if (!out.write(`${sku(n)},${n % 97}\n`)) await once(out, 'drain');
  out.end();
  await once(out, 'finish');
  return measure({ type: 'file', path: dir, stableMs: 0 });
}

function sqlConnection(client: SqlClient, database: string) {
  const { host, port, user } = SERVERS[client];
  return { host, port, user, database, ssl: false };
}

async function sql(client: SqlClient): Promise<Measured> {
  const admin = connectSql(
    sqlErpConfigSchema().parse({
      type: 'sql',
      client,
      connection: sqlConnection(client, SERVERS[client].admin),
    }),
  );
  await admin.raw(`create database ${DATABASE}`);
  const connection = sqlConnection(client, DATABASE);
  const db = connectSql(sqlErpConfigSchema().parse({ type: 'sql', client, connection }));
  try {
    if (client === 'pg') {
      await db.raw(
        `create table stock as select 'BULK-' || lpad(g::text, 7, '0') as code, g % 97 as on_hand from generate_series(1, ${ROWS}) g`,
      );
    } else {
      // MariaDB's sequence engine: seq_1_to_N is a table of 1..N.
      await db.raw(
        `create table stock (code varchar(40) primary key, on_hand int) as select concat('BULK-', lpad(seq, 7, '0')) as code, seq % 97 as on_hand from seq_1_to_${ROWS}`,
      );
    }
    if (client === 'pg') await db.raw('alter table stock add primary key (code)');
    return await measure({ type: 'sql', client, connection, queries: { stock: QUERY } });
  } finally {
    await db.destroy();
    await admin.raw(client === 'pg' ? `drop database ${DATABASE} with (force)` : `drop database ${DATABASE}`);
    await admin.destroy();
  }
}

const NAMES: Record<string, string> = {
  csv: 'file adapter, plain stock CSV',
  pg: 'SQL adapter, PostgreSQL (server-side cursor)',
  mysql: 'SQL adapter, MariaDB (row stream)',
};

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'erp-sync-bench-readers-'));
  const load = loadavg()[0]!.toFixed(1);
  const lines: string[] = [];
  try {
    for (const reader of ONLY) {
      const name = NAMES[reader];
      if (!name) throw new Error(`--only: unknown reader ${reader} (csv, pg, mysql)`);
      const m = reader === 'csv' ? await csv(dir) : await sql(reader as SqlClient);
      lines.push(
        `| ${name} | ${m.rows} (${m.bad} rejected) | ${m.wall.toFixed(2)} | ${Math.round(m.rows / m.wall)} | ` +
          `${m.cpu.toFixed(2)} | ${Math.round(m.rows / m.cpu)} |`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  process.stdout.write(
    `${machineLine()} Load average ${load} at the start, ${loadavg()[0]!.toFixed(1)} at the end.\n` +
      '| reader | rows | wall s | rows/s (wall) | CPU s | rows/s (CPU) |\n|---|---|---|---|---|---|\n' +
      `${lines.join('\n')}\n`,
  );
}

await main();
