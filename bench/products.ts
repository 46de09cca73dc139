/**
 * npm run bench:products [-- --record] [-- --new 10000] [-- --unchanged 100000] [-- --concurrency 4]
 *
 * The sandbox runs in this process (empty company). Scenarios, each `erp-sync run-once --only
 * products --json` as a child process (wall time and peak RSS are the daemon's alone):
 * 1. --new NEW products in products.csv, none on the platform: every one is created (POST /products);
 * 2. the same file again: every product unchanged, no write request;
 * 3. --unchanged products (the NEW ones plus more, created by an unmeasured warm-up run), all
 *    unchanged: the check alone.
 * Then a bare API client sends the same create bodies (other SKUs) with the same concurrency.
 * --record rewrites the "Products pipeline" section of bench/RESULTS.md.
 */
import { createWriteStream, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApiClient } from '../src/api/createApiClient.js';
import type { ProductCreateInput } from '../src/api/inputs.js';
import { writeConfigFile } from '../src/config.js';
import { startSandbox } from '../src/sandbox/index.js';
import { measureRunOnce, type MeasuredRun } from './support/measureRunOnce.js';
import { recordSection } from './support/recordSection.js';
import { hasFlag, numberArg } from './support/benchArgs.js';
import { machineLine } from './support/machineLine.js';

const NEW = numberArg('new', 10_000);
const UNCHANGED = Math.max(numberArg('unchanged', 100_000), NEW);
const CONCURRENCY = numberArg('concurrency', 4);
const RECORD = hasFlag('record');

const sku = (prefix: string, n: number): string => `${prefix}-${String(n).padStart(6, '0')}`;

function body(n: number, prefix = 'ERP'): ProductCreateInput {
  return {
    sku: sku(prefix, n),
    name: `ERP item ${n}`,
    status: 'active',
    price: 10 + (n % 500) / 4,
    vat_rate: 19,
    ean: String(5940000000000 + n),
    weight_grams: 100 + (n % 900),
    short_description: `Short description of item ${n}`,
    highlights: ['Fast', 'Robust'],
  };
}

async function writeProductsNdjson(path: string, count: number): Promise<void> {
  const out = createWriteStream(path);
  for (let n = 1; n <= count; n++) {
    if (!out.write(`${JSON.stringify(body(n))}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

async function main(): Promise<void> {
  const sandbox = await startSandbox({ port: 0, seed: 'empty' });
  const dir = mkdtempSync(join(tmpdir(), 'erp-sync-bench-products-'));
  const erpDir = join(dir, 'erp');
  mkdirSync(erpDir);
  const configFile = join(dir, 'config.yaml');
  writeConfigFile(configFile, {
    api: { baseUrl: sandbox.url, apiKey: sandbox.keys.primary },
    erp: { type: 'file', path: erpDir, stableMs: 0 },
    store: { path: join(dir, 'store.db') },
    sync: { concurrency: CONCURRENCY, batchSize: 500 },
    products: { enabled: true },
    log: { level: 'warn' },
  });
  const results: string[] = [];
  const writes = (): number => sandbox.requestLog.entries().filter((e) => e.method !== 'GET').length;
  const run = async (scenario: string): Promise<MeasuredRun> => {
    sandbox.requestLog.clear();
    const m = await measureRunOnce(['--only', 'products', '--config', configFile], [0, 1]);
    const s = m.summary;
    results.push(
      `| ${scenario} | ${s.read} | ${s.extra.created ?? 0} | ${s.unchanged} | ${writes()} | ${s.requests} | ${s.seconds.toFixed(2)} | ${m.wallSeconds.toFixed(2)} | ${m.peakRssMb.toFixed(0)} |`,
    );
    process.stderr.write(`${results.at(-1)}\n`);
    return m;
  };
  let bareSeconds = 0;
  try {
    await writeProductsNdjson(join(erpDir, 'products.ndjson'), NEW);
    const created = await run(`${NEW / 1000}k new products`);
    await run(`${NEW / 1000}k unchanged (rerun)`);
    if (UNCHANGED > NEW) {
      await writeProductsNdjson(join(erpDir, 'products.ndjson'), UNCHANGED);
      process.stderr.write(`warm-up: creating ${UNCHANGED - NEW} more products (not measured)...\n`);
      await measureRunOnce(['--only', 'products', '--config', configFile], [0, 1]);
      await run(`${UNCHANGED / 1000}k unchanged`);
    }

    // A bare client: the same bodies (other SKUs), POST /products, the same concurrency.
    const client = createApiClient({
      baseUrl: sandbox.url,
      apiKey: sandbox.keys.primary,
      maxSockets: CONCURRENCY,
    });
    const started = performance.now();
    let next = 1;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next <= NEW) await client.products.create(body(next++, 'BARE'));
      }),
    );
    bareSeconds = (performance.now() - started) / 1000;
    await client.close();
    results.push(
      `| bare client: ${NEW / 1000}k POST /products | ${NEW} | ${NEW} | 0 | ${NEW} | ${NEW} | ${bareSeconds.toFixed(2)} | | |`,
    );
    process.stderr.write(`${results.at(-1)}\n`);
    const ratio = created.summary.seconds / bareSeconds;
    results.push('', `Creating through the pipeline took ${ratio.toFixed(2)}x the bare client's time.`);
  } finally {
    await sandbox.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const section = [
    '## Products pipeline',
    '',
    `Command: \`npm run bench:products -- --new ${NEW} --unchanged ${UNCHANGED}\` (concurrency ${CONCURRENCY}). ` +
      `${machineLine()} Load average ${loadavg()[0]!.toFixed(1)} at the end (shared machine).`,
    'The sandbox runs in the bench process (in-memory SQLite, no faults); each scenario is',
    '`erp-sync run-once --only products --json` as a child process over an NDJSON file. A create is',
    'an intent row in the store, one POST /products, then links and field fingerprints in one',
    'transaction; the bare client sends the same bodies with the same concurrency and records nothing.',
    '',
    '| scenario | rows read | created | unchanged | write requests | all requests | pipeline s | wall s | peak RSS MB |',
    '|---|---|---|---|---|---|---|---|---|',
    ...results,
    '',
  ].join('\n');
  process.stdout.write(`\n${section}\n`);
  if (RECORD) recordSection('## Products pipeline', section);
}

await main();
