/**
 * npm run bench:readers [-- --rows 500000]
 *
 * How fast the file adapter streams a plain stock CSV (`sku,quantity`): rows through
 * `erp.stock()` (read, parse, map, validate the key), in rows per second of wall and CPU time, in
 * this process. Aim: at least 500k rows/s.
 */
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfig } from '../src/config.js';
import { createErpAdapter } from '../src/erp/createErpAdapter.js';
import { silentLogger } from '../src/logger.js';
import { numberArg } from './support/benchArgs.js';
import { machineLine } from './support/machineLine.js';

const ROWS = numberArg('rows', 500_000);

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'erp-sync-bench-readers-'));
  try {
    const out = createWriteStream(join(dir, 'stock.csv'));
    out.write('sku,quantity\n');
    for (let n = 1; n <= ROWS; n++)
      if (!out.write(`BULK-${String(n).padStart(7, '0')},${n % 97}\n`)) await once(out, 'drain');
    out.end();
    await once(out, 'finish');
    const config = parseConfig({
      api: { baseUrl: 'http://127.0.0.1:1/api/v2', apiKey: 'unused' },
      erp: { type: 'file', path: dir, stableMs: 0 },
    });
    const erp = await createErpAdapter(config.erp, silentLogger());
    const load = loadavg()[0]!.toFixed(1);
    const cpu = process.cpuUsage();
    const started = performance.now();
    let rows = 0;
    let bad = 0;
    // As the pipelines take them: in groups (sync/frame/batches), not one async step per row.
    for await (const group of erp.stock().groups()) {
      for (const row of group) {
        rows += 1;
        if (!row.ok) bad += 1;
      }
    }
    const wall = (performance.now() - started) / 1000;
    const used = process.cpuUsage(cpu);
    const cpuSeconds = (used.user + used.system) / 1e6;
    await erp.close?.();
    process.stdout.write(
      `${machineLine()} Load average ${load} at the start.\n` +
        `| file adapter, plain stock CSV | ${rows} rows (${bad} rejected) | ${wall.toFixed(2)} s wall, ${Math.round(rows / wall)} rows/s | ` +
        `${cpuSeconds.toFixed(2)} s CPU, ${Math.round(rows / cpuSeconds)} rows/s |\n`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
