import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  renameSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { FileErpConfig } from '../../../src/erp/file/fileConfigSchema.js';
import type { ErpRow } from '../../../src/domain/records.js';
import { FileErpAdapter } from '../../../src/erp/file/FileErpAdapter.js';
import { FileAccessError } from '../../../src/erp/file/FileAccessError.js';
import { FileNotReadyError } from '../../../src/erp/file/FileNotReadyError.js';
import { silentLogger } from '../../../src/logger.js';
import { fileConfig } from '../../support/writeDropFolder.js';
import { contractOrder } from '../../contract/contractData.js';

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length) rmSync(dirs.pop()!, { recursive: true, force: true });
});

function dropFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'erp-file-'));
  dirs.push(dir);
  return dir;
}

/** Writes a file that looks finished long ago (no stability wait). */
function put(dir: string, name: string, text: string | Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  const past = new Date(Date.now() - 60_000);
  utimesSync(path, past, past);
  return path;
}

function adapter(dir: string, overrides: Partial<FileErpConfig> = {}): FileErpAdapter {
  return new FileErpAdapter(fileConfig(dir, overrides), silentLogger());
}

async function collect<T>(rows: AsyncIterable<ErpRow<T>>): Promise<ErpRow<T>[]> {
  const out: ErpRow<T>[] = [];
  for await (const row of rows) out.push(row);
  return out;
}

const records = <T>(rows: ErpRow<T>[]) => rows.flatMap((r) => (r.ok ? [r.record] : []));

describe('file adapter input formats', () => {
  it('reads a semicolon CSV with a BOM, Romanian headers and decimal commas', async () => {
    const dir = dropFolder();
    const csv = '\uFEFFCod Produs;Pret;Pret Promo;TVA\nA-1;"1.234,50";999,9;19\nA-2;12,5;;9\n';
    put(dir, 'prices.csv', Buffer.from(csv, 'utf8'));
    const rows = await collect(adapter(dir, { decimalComma: true }).prices());
    expect(records(rows)).toEqual([
      { sku: 'A-1', price: 1234.5, salePrice: 999.9, vatRate: 19 },
      { sku: 'A-2', price: 12.5, salePrice: null, vatRate: 9 },
    ]);
  });

  it('reads an empty sale price as null (cleared) in every format, and an absent one as not sent', async () => {
    const dir = dropFolder();
    put(
      dir,
      'prices.csv',
      'sku,variant_sku,price,sale_price,cost_price\nA-1,,5,,\nTS,TS-M,30,,\nA-2,,6,4,\n',
    );
    expect(records(await collect(adapter(dir).prices()))).toEqual([
      { sku: 'A-1', price: 5, salePrice: null },
      { sku: 'TS', variantSku: 'TS-M', price: 30, salePrice: null },
      { sku: 'A-2', price: 6, salePrice: 4 },
    ]);
    // Without the column nothing is said about the sale price; an empty cost_price stays unsent.
    put(dir, 'prices.csv', 'sku,price,cost_price\nA-1,5,\nA-2,,\n');
    expect(await collect(adapter(dir).prices())).toMatchObject([
      { ok: true, record: { sku: 'A-1', price: 5 } },
      { ok: false, key: 'A-2', reason: 'no price field (price, sale_price, cost_price or vat_rate)' },
    ]);
    expect(records(await collect(adapter(dir).prices()))[0]).not.toHaveProperty('salePrice');

    const json = [
      { sku: 'J-1', price: 5, sale_price: null },
      { sku: 'J-2', price: 5, sale_price: '' },
      { sku: 'J-3', price: 5 },
      { sku: 'J-4', sale_price: null, price: null },
    ];
    const jsonDir = dropFolder();
    put(jsonDir, 'prices.json', JSON.stringify(json));
    const fromJson = records(await collect(adapter(jsonDir).prices()));
    expect(fromJson).toEqual([
      { sku: 'J-1', price: 5, salePrice: null },
      { sku: 'J-2', price: 5, salePrice: null },
      { sku: 'J-3', price: 5 },
      { sku: 'J-4', salePrice: null },
    ]);
  });

  it('reads an empty XML element or attribute as a cleared sale price, a missing one as not sent', async () => {
    const dir = dropFolder();
    put(
      dir,
      'prices.xml',
      '<prices><item><sku>X-1</sku><price>5</price><sale_price/></item>' +
        '<item sku="X-2" price="5" sale_price=""/>' +
        '<item><sku>X-3</sku><price>5</price><sale_price></sale_price></item>' +
        '<item sku="X-4" price="5"/></prices>',
    );
    expect(records(await collect(adapter(dir).prices()))).toEqual([
      { sku: 'X-1', price: 5, salePrice: null },
      { sku: 'X-2', price: 5, salePrice: null },
      { sku: 'X-3', price: 5, salePrice: null },
      { sku: 'X-4', price: 5 },
    ]);
  });

  it('refuses decimal commas when the option is off', async () => {
    const dir = dropFolder();
    put(dir, 'prices.csv', 'sku;price\nA-1;12,50\n');
    const [row] = await collect(adapter(dir).prices());
    expect(row).toMatchObject({ ok: false, key: 'A-1', reason: 'price is not a number: "12,50"' });
  });

  it('honours the configured delimiter over detection', async () => {
    const dir = dropFolder();
    put(dir, 'stock.csv', 'sku;quantity\nA;5\n');
    expect(records(await collect(adapter(dir).stock()))).toEqual([{ sku: 'A', quantity: 5 }]);
    const forced = await collect(adapter(dir, { delimiter: ',' }).stock());
    expect(forced).toEqual([expect.objectContaining({ ok: false, reason: 'missing sku' })]);
  });

  it('maps configured column aliases', async () => {
    const dir = dropFolder();
    put(dir, 'stock.csv', 'Articol,Disponibil Depozit,Marime\nA,3,A-S\n');
    const rows = await collect(
      adapter(dir, {
        columns: { sku: ['Articol'], quantity: ['Disponibil depozit'], variant_sku: ['marime'] },
      }).stock(),
    );
    expect(records(rows)).toEqual([{ sku: 'A', variantSku: 'A-S', quantity: 3 }]);
  });

  it('reads JSON numbers and booleans as they are', async () => {
    const dir = dropFolder();
    put(dir, 'products.json', '[{"code":"P","denumire":"Pix","pret":2.5,"track_stock":false,"stoc":4}]');
    expect(records(await collect(adapter(dir).products()))).toEqual([
      { sku: 'P', name: 'Pix', price: 2.5, trackStock: false, stockQuantity: 4 },
    ]);
  });

  it('turns a malformed JSON array into one reject and no records', async () => {
    const dir = dropFolder();
    put(
      dir,
      'stock.json',
      '[\n{"sku":"A","quantity":1},\n{"sku":"B","quantity":2}\n{"sku":"C","quantity":3}\n]',
    );
    const rows = await collect(adapter(dir).stock());
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      ok: false,
      key: 'stock.json:4',
      source: { file: 'stock.json', line: 4 },
    });
    expect(!rows[0]!.ok && rows[0]!.reason).toMatch(/^malformed JSON at line 4, column 1/);
  });

  it('turns a malformed XML file into one reject and no records', async () => {
    const dir = dropFolder();
    put(dir, 'stock.xml', '<stock>\n<item sku="A" quantity="1"/>\n<item sku="B" quantity="2">\n</stock>\n');
    const rows = await collect(adapter(dir).stock());
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ ok: false, source: { file: 'stock.xml', line: 4 } });
  });

  it('prefers CSV when several formats of one kind are present, and check() says so', async () => {
    const dir = dropFolder();
    put(dir, 'stock.json', '[{"sku":"J","quantity":1}]');
    put(dir, 'stock.CSV', 'sku,quantity\nC,2\n');
    const erp = adapter(dir);
    expect(records(await collect(erp.stock()))).toEqual([{ sku: 'C', quantity: 2 }]);
    const check = await erp.check();
    expect(check.ok).toBe(true);
    expect(check.details).toMatch(/stock: stock\.CSV .*ignored: stock\.json/);
    expect(check.details).toMatch(/prices: no file/);
  });

  it('reports a missing drop folder in check() and as an ERP error when read', async () => {
    const erp = adapter(join(tmpdir(), 'erp-sync-no-such-folder'));
    const check = await erp.check();
    expect(check.ok).toBe(false);
    expect(check.details).toMatch(/cannot read the ERP drop folder/);
    await expect(collect(erp.stock())).rejects.toMatchObject({ code: 'erp_unavailable' });
  });
  it('imports no order into a drop folder gone since the last import, and makes none of its folders', async () => {
    const dir = dropFolder();
    const erp = adapter(dir);
    await erp.importOrder(contractOrder(1));
    // Unmounted (moved away) right after: the next import comes within the second the folder is taken as there.
    renameSync(dir, `${dir}-away`);
    dirs.push(`${dir}-away`);
    await expect(erp.importOrder(contractOrder(2))).rejects.toMatchObject({ code: 'erp_unavailable' });
    expect(existsSync(dir)).toBe(false);
    expect(readdirSync(join(`${dir}-away`, 'outbox', 'orders')).filter((n) => !n.startsWith('.'))).toEqual([
      '1.json',
    ]);
  });

  it('reports a file that cannot be read as an ERP error, not as malformed data', async () => {
    for (const name of ['stock.csv', 'stock.xml']) {
      const dir = dropFolder();
      mkdirSync(join(dir, name));
      const error = await collect(adapter(dir).stock()).catch((e: unknown) => e);
      expect(error, name).toBeInstanceOf(FileAccessError);
      expect(error).toMatchObject({ code: 'erp_unavailable', retryable: true });
    }
  });
});

describe('file adapter completeness and archive', () => {
  it('waits for a file still being written, then reads all of it', async () => {
    const dir = dropFolder();
    const path = join(dir, 'stock.csv');
    writeFileSync(path, 'sku,quantity\nA,1\n');
    const writer = setInterval(() => appendFileSync(path, `B${Math.random().toString(36).slice(2)},1\n`), 40);
    setTimeout(() => clearInterval(writer), 400);
    const started = Date.now();
    // stableMs far above the 40 ms between appends: a loaded machine delaying one append must not
    // look like a finished file.
    const rows = await collect(adapter(dir, { stableMs: 1_500 }).stock());
    const waited = Date.now() - started;
    clearInterval(writer);
    expect(waited).toBeGreaterThanOrEqual(400);
    expect(rows.filter((r) => r.ok)).toHaveLength(rows.length);
    expect(rows.length).toBeGreaterThanOrEqual(6);
  });

  it('reads a file renamed into place at once', async () => {
    const dir = dropFolder();
    put(dir, '.stock.csv.tmp', 'sku,quantity\nA,1\n');
    renameSync(join(dir, '.stock.csv.tmp'), join(dir, 'stock.csv'));
    const started = Date.now();
    expect(records(await collect(adapter(dir, { stableMs: 10_000 }).stock()))).toEqual([
      { sku: 'A', quantity: 1 },
    ]);
    expect(Date.now() - started).toBeLessThan(5_000); // not after the 10 s stability wait
  });

  it('gives up on a file that never settles with a retryable error', async () => {
    const dir = dropFolder();
    const path = join(dir, 'stock.csv');
    writeFileSync(path, 'sku,quantity\n');
    const writer = setInterval(() => appendFileSync(path, 'A,1\n'), 30);
    try {
      const error = await collect(adapter(dir, { stableMs: 200, stableTimeoutMs: 500 }).stock()).catch(
        (e) => e,
      );
      expect(error).toBeInstanceOf(FileNotReadyError);
      expect(error).toMatchObject({ code: 'erp_unavailable', retryable: true });
    } finally {
      clearInterval(writer);
    }
  });

  it('archives the file read after a successful run when asked', async () => {
    const dir = dropFolder();
    put(dir, 'stock.csv', 'sku,quantity\nA,1\n');
    const erp = adapter(dir, { archive: true });
    const read = erp.stock();
    await collect(read);
    // The receipt carries what commit needs: another instance (another job, process) commits it.
    await adapter(dir, { archive: true }).commit(read.receipt!);
    expect(existsSync(join(dir, 'stock.csv'))).toBe(false);
    const archived = readdirSync(join(dir, 'archive'));
    expect(archived).toHaveLength(1);
    expect(archived[0]).toMatch(/^\d{8}T\d{9}Z-stock\.csv$/);
    await erp.commit(read.receipt!);
    expect(readdirSync(join(dir, 'archive'))).toHaveLength(1);
  });

  it('leaves a file replaced after it was read for the next run, and archives nothing when off', async () => {
    const dir = dropFolder();
    put(dir, 'stock.csv', 'sku,quantity\nA,1\n');
    const erp = adapter(dir, { archive: true });
    const read = erp.stock();
    await collect(read);
    put(dir, '.next.tmp', 'sku,quantity\nA,2\n');
    renameSync(join(dir, '.next.tmp'), join(dir, 'stock.csv'));
    await erp.commit(read.receipt!);
    expect(records(await collect(erp.stock()))).toEqual([{ sku: 'A', quantity: 2 }]);

    const off = adapter(dir);
    const offRead = off.stock();
    await collect(offRead);
    expect(offRead.receipt).toBeNull();
    expect(existsSync(join(dir, 'stock.csv'))).toBe(true);
  });
});
