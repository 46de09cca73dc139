import { createWriteStream, mkdtempSync, rmSync, utimesSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileErpAdapter } from '../../../src/erp/file/FileErpAdapter.js';
import { silentLogger } from '../../../src/logger.js';
import { fileConfig } from './writeDropFolder.js';

const ROWS = 1_000_000;
const dir = mkdtempSync(join(tmpdir(), 'erp-file-1m-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Writes the file in pieces so that the test itself never holds a million rows. */
async function writeBigCsv(path: string): Promise<void> {
  const out = createWriteStream(path);
  out.write('sku;quantity;variant_sku\n');
  for (let start = 0; start < ROWS; start += 10_000) {
    let piece = '';
    for (let i = start; i < start + 10_000; i++)
      piece += `SKU-${i};${i % 1000};${i % 10 === 0 ? `V-${i}` : ''}\n`;
    if (!out.write(piece)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'close');
  utimesSync(path, new Date(0), new Date(0));
}

describe('file adapter on a million rows', () => {
  it('streams them with bounded memory', { timeout: 90_000 }, async () => {
    await writeBigCsv(join(dir, 'stock.csv'));
    const adapter = new FileErpAdapter(fileConfig(dir), silentLogger());
    const before = process.memoryUsage().rss;
    let peak = before;
    let records = 0;
    let last = '';
    const started = performance.now();
    for await (const row of adapter.stock()) {
      if (!row.ok) throw new Error(`unexpected reject: ${row.reason}`);
      records++;
      if ((records & 0x3fff) === 0) peak = Math.max(peak, process.memoryUsage().rss);
      last = row.record.sku;
    }
    const seconds = (performance.now() - started) / 1000;
    const growthMb = (peak - before) / 1e6;
    console.log(
      `1M rows: ${seconds.toFixed(1)} s, RSS ${Math.round(before / 1e6)} -> ${Math.round(peak / 1e6)} MB`,
    );
    expect(records).toBe(ROWS);
    expect(last).toBe(`SKU-${ROWS - 1}`);
    // The file is ~20 MB; what grows is the per-file duplicate index (one entry per key).
    expect(growthMb).toBeLessThan(200);
  });
});
