import { spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync, utimesSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

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

/** Reads DIR/stock.csv in a child process that can force collections (see measureStockRead.ts). */
async function measureStockRead(path: string): Promise<StockReadMeasure> {
  const child = spawn(
    process.execPath,
    ['--expose-gc', '--import', 'tsx', join(import.meta.dirname, '../../support/measureStockRead.ts'), path],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`measureStockRead failed (${code}): ${stderr}`);
  return JSON.parse(stdout) as StockReadMeasure;
}

interface StockReadMeasure {
  records: number;
  last: string;
  baseline: number;
  peak: number;
  rssBefore: number;
  rssPeak: number;
  seconds: number;
}

describe('file adapter on a million rows', () => {
  it('streams them with bounded memory', { timeout: 180_000 }, async () => {
    await writeBigCsv(join(dir, 'stock.csv'));
    const read = await measureStockRead(dir);
    const retainedMb = (read.peak - read.baseline) / 1e6;
    console.log(
      `1M rows: ${read.seconds.toFixed(1)} s, retained after GC +${retainedMb.toFixed(0)} MB, ` +
        `RSS ${Math.round(read.rssBefore / 1e6)} -> ${Math.round(read.rssPeak / 1e6)} MB`,
    );
    expect(read.records).toBe(ROWS);
    expect(read.last).toBe(`SKU-${ROWS - 1}`);
    // The file is ~20 MB; what grows is the per-file duplicate index (one entry per key, ~65 MB
    // for a million). Holding the rows as well measured ~200 MB.
    expect(retainedMb).toBeLessThan(120);
  });
});
