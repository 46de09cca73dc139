import { appendFileSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ErpChange, ErpWatch } from '../../../src/erp/ErpWatch.js';
import { FileAccessError } from '../../../src/erp/file/FileAccessError.js';
import { FileErpAdapter } from '../../../src/erp/file/FileErpAdapter.js';
import type { FileErpConfig } from '../../../src/erp/file/fileConfigSchema.js';
import { classifyDropPath, watchDropFolder } from '../../../src/erp/file/watchDropFolder.js';
import { silentLogger } from '../../../src/logger.js';
import { fileConfig } from '../../support/writeDropFolder.js';

const STOCK = 'sku,quantity\nA,1\n';

describe('file adapter: watching the drop folder', () => {
  let dir: string;
  let config: FileErpConfig;
  let watch: ErpWatch | undefined;
  let seen: { change: ErpChange; at: number }[];

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'erp-sync-watch-'));
    config = fileConfig(dir, { stableMs: 300 });
    seen = [];
  });
  afterEach(async () => {
    await watch?.stop();
    watch = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  const start = async (options: { debounceMs?: number } = {}) => {
    watch = await watchDropFolder(
      config,
      (change) => seen.push({ change, at: Date.now() }),
      silentLogger(),
      options,
    );
  };
  /** Writes a file elsewhere and renames it into place, as a careful ERP export does. */
  const drop = (relative: string, text: string) => {
    const temp = join(dir, `.${relative.replace(/\//g, '_')}.tmp`);
    writeFileSync(temp, text);
    renameSync(temp, join(dir, relative));
  };
  const waitFor = async (count: number, timeoutMs = 5_000) => {
    const deadline = Date.now() + timeoutMs;
    while (seen.length < count && Date.now() < deadline) await sleep(20);
    return seen.map((s) => s.change);
  };

  it('reports a stock file renamed into place within seconds, once', async () => {
    await start();
    const dropped = Date.now();
    drop('stock.csv', STOCK);
    expect(await waitFor(1)).toEqual(['stock']);
    expect(seen[0]!.at - dropped).toBeLessThan(2_000);
    await sleep(800);
    expect(seen.map((s) => s.change)).toEqual(['stock']);
  });

  it('reports each input by the read it changes: prices, products, events, inbox', async () => {
    mkdirSync(join(dir, 'inbox', 'orders'), { recursive: true });
    await start();
    drop('prices.json', '[]');
    drop('products.XML', '<products/>');
    drop('events.csv', 'order_id,status\n');
    drop('inbox/orders/erp-1.json', '{}');
    expect((await waitFor(4)).sort()).toEqual(['orderEvents', 'outgoingOrders', 'prices', 'products']);
  });

  it('reports a file still being written only once, after it stopped growing for stableMs', async () => {
    // stableMs far above the 100 ms between appends: a loaded machine delaying one append must
    // not look like a finished file.
    config = fileConfig(dir, { stableMs: 1_500 });
    await start({ debounceMs: 50 });
    const path = join(dir, 'stock.csv');
    writeFileSync(path, 'sku,quantity\n');
    let lastWrite = Date.now();
    for (let i = 0; i < 8; i += 1) {
      await sleep(100);
      appendFileSync(path, `S${i},${i}\n`);
      lastWrite = Date.now();
    }
    expect(await waitFor(1)).toEqual(['stock']);
    expect(seen[0]!.at - lastWrite).toBeGreaterThanOrEqual(config.stableMs - 50);
    await sleep(1_000);
    expect(seen.map((s) => s.change)).toEqual(['stock']);
  });

  it('reports a burst of drops of one file once, and a later drop again', async () => {
    await start();
    for (let i = 0; i < 5; i += 1) drop('stock.csv', `${STOCK}B,${i}\n`);
    expect(await waitFor(1)).toEqual(['stock']);
    await sleep(800);
    expect(seen).toHaveLength(1);
    drop('stock.csv', `${STOCK}C,9\n`);
    expect(await waitFor(2)).toEqual(['stock', 'stock']);
  });

  it('ignores temporary files, other names, the archive, the outbox and the inbox done folder', async () => {
    for (const sub of ['archive', 'outbox/orders', 'inbox/orders/done'])
      mkdirSync(join(dir, sub), { recursive: true });
    await start();
    writeFileSync(join(dir, '.stock.csv.tmp'), STOCK);
    writeFileSync(join(dir, 'stock.csv.part'), STOCK);
    writeFileSync(join(dir, 'stock.txt'), STOCK);
    writeFileSync(join(dir, 'stocks.csv'), STOCK);
    writeFileSync(join(dir, 'archive', 'stock.csv'), STOCK);
    writeFileSync(join(dir, 'outbox', 'orders', '12.json'), '{}');
    writeFileSync(join(dir, 'inbox', 'orders', 'done', 'erp-1.json'), '{}');
    writeFileSync(join(dir, 'inbox', 'orders', '.erp-2.json'), '{}');
    await sleep(1_200);
    expect(seen).toEqual([]);
    // The watcher was alive all along: a real drop is reported.
    drop('prices.csv', 'sku,price\nA,1\n');
    expect(await waitFor(1)).toEqual(['prices']);
  });

  it('watches an inbox created after the watch started', async () => {
    await start();
    mkdirSync(join(dir, 'inbox', 'orders'), { recursive: true });
    await sleep(300);
    drop('inbox/orders/erp-7.json', '{}');
    expect(await waitFor(1)).toEqual(['outgoingOrders']);
  });

  it('reports nothing once stopped', async () => {
    await start();
    drop('stock.csv', STOCK);
    await watch!.stop();
    watch = undefined;
    drop('prices.csv', 'sku,price\nA,1\n');
    await sleep(1_000);
    expect(seen).toEqual([]);
  });

  it('is the FileErpAdapter watch capability', async () => {
    const adapter = new FileErpAdapter(config, silentLogger());
    watch = await adapter.watch((change) => seen.push({ change, at: Date.now() }));
    drop('stock.ndjson', '{"sku":"A","quantity":1}\n');
    expect(await waitFor(1)).toEqual(['stock']);
  });

  it('refuses to watch a drop folder that is not there, naming it', async () => {
    const missing = join(dir, 'no-such-folder');
    const watching = watchDropFolder({ ...config, path: missing }, () => undefined, silentLogger());
    await expect(watching).rejects.toBeInstanceOf(FileAccessError);
    await expect(watching).rejects.toThrow(`cannot watch the ERP drop folder ${missing}`);
  });

  it('classifies paths by the exact input names', () => {
    expect(classifyDropPath(config, join(dir, 'stock.csv'))).toBe('stock');
    expect(classifyDropPath(config, join(dir, 'events.json'))).toBe('orderEvents');
    expect(classifyDropPath(config, join(dir, 'events.xml'))).toBeUndefined();
    expect(classifyDropPath(config, join(dir, 'inbox', 'orders', 'a.json'))).toBe('outgoingOrders');
    expect(classifyDropPath(config, join(dir, 'inbox', 'orders', 'a.xml'))).toBeUndefined();
    expect(classifyDropPath(config, join(dir, 'archive', 'stock.csv'))).toBeUndefined();
    expect(classifyDropPath(config, join(dir, '.stock.csv'))).toBeUndefined();
  });
});
