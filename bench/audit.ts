/**
 * npm run bench:audit [-- --record] [-- --skus 100000]
 *
 * The sandbox runs in this process with N extra simple products (BULK-000001..). The ERP folder
 * holds N stock rows and N price rows. `run-once --only stock,prices` puts the platform in step,
 * then a price change is made to 1% of the SKUs in the ERP; each audit is `erp-sync audit --json`
 * as a child process (wall time and peak RSS are its own). --record writes the "Audit" section of
 * bench/RESULTS.md.
 */
import { createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeConfigFile } from '../src/config.js';
import { startSandbox } from '../src/sandbox/index.js';
import type { AuditReport } from '../src/diagnostics/audit.js';
import { measureCli } from './support/measureCli.js';
import { measureRunOnce } from './support/measureRunOnce.js';
import { RESULTS_PATH, recordSection } from './support/recordSection.js';
import { hasFlag, numberArg } from './support/benchArgs.js';
import { machineLine } from './support/machineLine.js';

const SKUS = numberArg('skus', 100_000);
const RECORD = hasFlag('record');
const sku = (n: number): string => `BULK-${String(n).padStart(6, '0')}`;

async function writeLines(path: string, header: string, line: (n: number) => string): Promise<void> {
  const out = createWriteStream(path);
  out.write(`${header}\n`);
  for (let n = 1; n <= SKUS; n++) if (!out.write(`${line(n)}\n`)) await once(out, 'drain');
  out.end();
  await once(out, 'finish');
}

async function main(): Promise<void> {
  process.stderr.write(`starting the sandbox with ${SKUS} products...\n`);
  const sandbox = await startSandbox({ port: 0, seed: 'empty', extraProducts: SKUS });
  const dir = mkdtempSync(join(tmpdir(), 'erp-sync-bench-audit-'));
  const config = writeConfigFile(join(dir, 'config.yaml'), {
    api: { baseUrl: sandbox.url, apiKey: sandbox.keys.primary },
    erp: { type: 'file', path: dir, stableMs: 0 },
    store: { path: join(dir, 'store.db') },
    sync: { batchSize: 500, concurrency: 4 },
    log: { level: 'warn' },
  });
  const rows: string[] = [];
  const row = (
    scenario: string,
    m: { output: AuditReport; wallSeconds: number; peakRssMb: number },
    writes: number,
  ): void => {
    const r = m.output;
    rows.push(
      `| ${scenario} | ${r.read.platformItems} | ${Object.values(r.read.erpRows).reduce((a, b) => a + b, 0)} | ${r.drift} | ${writes} | ${r.phases.platformSeconds.toFixed(2)} | ${r.phases.erpSeconds.toFixed(2)} | ${r.seconds.toFixed(2)} | ${m.wallSeconds.toFixed(2)} | ${m.peakRssMb.toFixed(0)} |`,
    );
    process.stderr.write(`${rows.at(-1)}\n`);
  };
  const writes = (): number => sandbox.requestLog.entries().filter((e) => e.method !== 'GET').length;
  try {
    await writeLines(join(dir, 'stock.csv'), 'sku,quantity', (n) => `${sku(n)},${(n % 89) + 1}`);
    await writeLines(join(dir, 'prices.csv'), 'sku,price,vat_rate', (n) => `${sku(n)},${10 + (n % 50)},19`);
    process.stderr.write('pushing stock and prices (run-once)...\n');
    await measureRunOnce(['--only', 'stock,prices', '--config', config], [0, 1]);

    sandbox.requestLog.clear();
    row(
      `in step, ${SKUS / 1000}k SKUs (stock + prices)`,
      await measureCli<AuditReport>(
        ['audit', '--pipeline', 'stock,prices', '--json', '--max', '10', '--config', config],
        [0, 1],
      ),
      writes(),
    );
    // 1% of the prices change in the ERP: the audit lists them (a prices run is due).
    await writeLines(
      join(dir, 'prices.csv'),
      'sku,price,vat_rate',
      (n) => `${sku(n)},${10 + (n % 50) + (n % 100 === 0 ? 1 : 0)},19`,
    );
    sandbox.requestLog.clear();
    row(
      `1% price drift, ${SKUS / 1000}k SKUs (stock + prices)`,
      await measureCli<AuditReport>(
        ['audit', '--pipeline', 'stock,prices', '--json', '--max', '10', '--config', config],
        [1],
      ),
      writes(),
    );
  } finally {
    await sandbox.close();
    rmSync(dir, { recursive: true, force: true });
  }

  const section = [
    '## Audit',
    '',
    `Command: \`npm run bench:audit\`. ${machineLine()}`,
    'The sandbox runs in the bench process (in-memory SQLite); each audit is `erp-sync audit --json` as a child',
    'process. "platform s" is reading the catalog by pages (100 per request) into the scratch table on disk; "ERP +',
    'compare s" is reading both ERP files through the adapter and comparing each chunk with the scratch table, the',
    `fingerprints and the rejects. Peak RSS is the child's VmHWM. Shared machine (load average ${loadavg()[0]!.toFixed(1)} at the end).`,
    '',
    '| scenario | platform items | ERP rows | drift | write requests | platform s | ERP + compare s | audit s | wall s | peak RSS MB |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
    'Aim: 100k SKUs compared within a few seconds of reading both sides, in bounded memory; no write request.',
    '',
  ].join('\n');
  process.stdout.write(`\n${section}\n`);
  if (RECORD) {
    if (!readFileSync(RESULTS_PATH, 'utf8').includes('\n## Audit'))
      writeFileSync(RESULTS_PATH, `${readFileSync(RESULTS_PATH, 'utf8').trimEnd()}\n\n## Audit\n`);
    recordSection('## Audit', section);
  }
}

if (!existsSync('src/cli/main.ts')) throw new Error('run from the project root (npm run bench:audit)');
await main();
