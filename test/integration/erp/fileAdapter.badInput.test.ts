import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import iconv from 'iconv-lite';
import { afterEach, describe, expect, it } from 'vitest';
import type { FileErpConfig } from '../../../src/erp/file/fileConfigSchema.js';
import type { ErpRow, PriceRecord } from '../../../src/domain/records.js';
import { FileErpAdapter } from '../../../src/erp/file/FileErpAdapter.js';
import { silentLogger } from '../../../src/logger.js';
import { fileConfig } from '../../support/writeDropFolder.js';

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length) rmSync(dirs.pop()!, { recursive: true, force: true });
});

function dropFolder(files: Record<string, string | Buffer>): string {
  const dir = mkdtempSync(join(tmpdir(), 'erp-bad-'));
  dirs.push(dir);
  const past = new Date(Date.now() - 60_000);
  for (const [name, content] of Object.entries(files)) {
    writeFileSync(join(dir, name), content);
    utimesSync(join(dir, name), past, past);
  }
  return dir;
}

function adapter(dir: string, overrides: Partial<FileErpConfig> = {}): FileErpAdapter {
  return new FileErpAdapter(fileConfig(dir, overrides), silentLogger());
}

async function collect<T>(rows: AsyncIterable<ErpRow<T>>): Promise<ErpRow<T>[]> {
  const out: ErpRow<T>[] = [];
  for await (const row of rows) out.push(row);
  return out;
}

/** `ok KEY` or `reject KEY @line: reason`, in source order. */
function outline<T extends { sku: string }>(rows: ErpRow<T>[]): string[] {
  return rows.map((r) =>
    r.ok ? `ok ${r.record.sku}` : `reject ${r.key} @${r.source.file}:${r.source.line}: ${r.reason}`,
  );
}

/** No raw control character (ESC, NUL, C1) anywhere in what a person would be shown. */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/; // eslint-disable-line no-control-regex

describe('a stray quote in a CSV cell', () => {
  it('rejects that line alone; the rows before and after it are read with their line numbers', async () => {
    const csv = 'sku,quantity\nDEMO-0001,5\nDEMO-0002,6\nDEMO-0003 12" pipe,8\nDEMO-0004,9\n\nDEMO-0005,10\n';
    const rows = await collect(adapter(dropFolder({ 'stock.csv': csv })).stock());
    expect(outline(rows)).toEqual([
      'ok DEMO-0001',
      'ok DEMO-0002',
      expect.stringMatching(
        /^reject stock\.csv:4 @stock\.csv:4: malformed CSV: a quote inside an unquoted cell \(cell 1\)/,
      ),
      'ok DEMO-0004',
      'ok DEMO-0005',
    ]);
    expect(rows.filter((r) => r.ok).map((r) => r.source.line)).toEqual([2, 3, 5, 7]);
  });

  it('keeps line numbers right after several broken lines, multi-line cells and CRLF', async () => {
    const csv = 'sku;quantity;note\r\nA;1\r\nB 1";2\r\nC 2";3\r\nD;4;"two\r\nlines"\r\nE;5\r\n';
    const rows = await collect(adapter(dropFolder({ 'stock.csv': csv })).stock());
    expect(rows.map((r) => `${r.ok ? r.record.sku : 'reject'}@${r.source.line}`)).toEqual([
      'A@2',
      'reject@3',
      'reject@4',
      'D@5',
      'E@7',
    ]);
  });

  it('names the line an unclosed quote opens on, once, and reads the rows before it', async () => {
    const csv = 'sku,quantity\nA,1\n"B,2\nC,3\n';
    const rows = await collect(adapter(dropFolder({ 'stock.csv': csv })).stock());
    expect(outline(rows)).toEqual([
      'ok A',
      expect.stringMatching(/^reject stock\.csv:3 .*never closed, so the rest of the file was not read$/),
    ]);
  });
});

describe('binary garbage and invalid UTF-8', () => {
  it('rejects a line with bytes that are not UTF-8, naming it, instead of reading another SKU', async () => {
    const csv = Buffer.concat([
      Buffer.from('sku,quantity\nDEMO-0001,5\nDEMO-'),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('0002,6\nDEMO-0003,7\n'),
    ]);
    const rows = await collect(adapter(dropFolder({ 'stock.csv': csv })).stock());
    expect(outline(rows)).toEqual([
      'ok DEMO-0001',
      'reject stock.csv:3 @stock.csv:3: the line is not valid UTF-8 (byte 0xFF at byte 6 of the line); set erp.encoding if the export uses another encoding',
      'ok DEMO-0003',
    ]);
  });

  it('rejects a JSON array or XML file that is not valid UTF-8 as a whole, naming the line', async () => {
    const bad = Buffer.from([0xc3, 0x28]);
    const json = Buffer.concat([
      Buffer.from('[\n{"sku":"A","quantity":1},\n{"sku":"B'),
      bad,
      Buffer.from('","quantity":2}\n]\n'),
    ]);
    const xml = Buffer.concat([
      Buffer.from('<stock>\n<item sku="A" quantity="1"/>\n<item sku="B'),
      bad,
      Buffer.from('" quantity="2"/>\n</stock>\n'),
    ]);
    for (const [name, content, at] of [
      ['stock.json', json, 10],
      ['stock.xml', xml, 13],
    ] as const) {
      const rows = await collect(adapter(dropFolder({ [name]: content })).stock());
      expect(outline(rows), name).toEqual([
        `reject ${name}:3 @${name}:3: the file is not valid UTF-8 at line 3 (byte 0xC3 at byte ${at} of the line); set erp.encoding if the export uses another encoding`,
      ]);
    }
  });

  it('never hands raw control characters to a reject, whatever the file holds', async () => {
    const garbage = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) % 256));
    const csv = Buffer.concat([Buffer.from('sku,quantity\nA\u001b[31m,\u009b2J\nB,1\n'), garbage]);
    const rows = await collect(adapter(dropFolder({ 'stock.csv': csv })).stock());
    expect(rows.length).toBeGreaterThan(1);
    for (const row of rows) {
      if (row.ok) continue;
      expect(row.key).not.toMatch(CONTROL);
      expect(row.reason).not.toMatch(CONTROL);
    }
    expect(rows[0]).toMatchObject({ ok: false, key: 'A\\x1b[31m' });
  });
});

describe('erp.encoding', () => {
  it('reads a Windows-1250 export with Romanian characters', async () => {
    // As Romanian Windows ERPs write it: code page 1250 has s and t with cedilla (no comma-below forms).
    const text = 'Cod;Denumire;Cantitate\r\nŞTEF-1;Şnur ţesut şi împletit;3\r\nĂLBĂ-2;Îmbrăcăminte â Ţ;4\r\n';
    const csv = iconv.encode(text, 'windows-1250');
    expect([...csv.subarray(24, 26)]).toEqual([0xaa, 0x54]); // "ŞT": one byte per letter
    expect(csv.includes(0xfe) && csv.includes(0xba) && csv.includes(0xe3) && csv.includes(0xee)).toBe(true); // ţ ş ă î
    const dir = dropFolder({ 'stock.csv': csv, 'products.csv': csv });
    const stock = await collect(adapter(dir, { encoding: 'windows-1250' }).stock());
    expect(outline(stock)).toEqual(['ok ŞTEF-1', 'ok ĂLBĂ-2']);
    const products = await collect(adapter(dir, { encoding: 'windows-1250' }).products());
    expect(products.flatMap((r) => (r.ok ? [r.record.name] : []))).toEqual([
      'Şnur ţesut şi împletit',
      'Îmbrăcăminte â Ţ',
    ]);

    // Read as UTF-8 the same bytes are refused line by line, never turned into other SKUs.
    const asUtf8 = await collect(adapter(dir).stock());
    expect(asUtf8.map((r) => `${r.ok}@${r.source.line}`)).toEqual(['false@2', 'false@3']);
    expect((asUtf8[0] as { reason: string }).reason).toContain('not valid UTF-8');
  });

  it('reads ISO-8859-2 JSON and XML too', async () => {
    const json = iconv.encode('[{"sku":"ŞŢ-1","quantity":1}]', 'iso-8859-2');
    const xml = iconv.encode('<stock><item sku="ŞŢ-2" quantity="2"/></stock>', 'iso-8859-2');
    const jsonRows = await collect(
      adapter(dropFolder({ 'stock.json': json }), { encoding: 'iso-8859-2' }).stock(),
    );
    const xmlRows = await collect(
      adapter(dropFolder({ 'stock.xml': xml }), { encoding: 'iso-8859-2' }).stock(),
    );
    expect(outline(jsonRows)).toEqual(['ok ŞŢ-1']);
    expect(outline(xmlRows)).toEqual(['ok ŞŢ-2']);
  });
});

describe('field and line bounds', () => {
  it('rejects a 50 MB SKU line without holding it, and reads the rows around it', async () => {
    const huge = 'X'.repeat(50 * 1024 * 1024);
    const dir = dropFolder({ 'stock.csv': `sku,quantity\nA,1\n${huge},5\nB,2\n` });
    const before = process.memoryUsage().rss;
    let peak = before;
    const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
    const rows = await collect(adapter(dir).stock());
    clearInterval(timer);
    expect(outline(rows)).toEqual([
      'ok A',
      'reject stock.csv:3 @stock.csv:3: the line is longer than 1 MiB (50.0 MiB): skipped',
      'ok B',
    ]);
    // The file itself is 50 MB; what the reader holds is bounded by the 1 MiB line limit.
    expect(peak - before).toBeLessThan(200 * 1024 * 1024);
  });

  it('rejects a SKU longer than the platform holds, showing it shortened', async () => {
    const long = `L${'0'.repeat(5000)}`;
    const rows = await collect(
      adapter(
        dropFolder({ 'stock.csv': `sku,variant_sku,quantity\n${long},,5\nA,${'V'.repeat(101)},1\nB,,2\n` }),
      ).stock(),
    );
    expect(rows).toHaveLength(3);
    expect(rows[0]).toMatchObject({ ok: false, reason: 'sku is longer than 100 characters (5001)' });
    expect((rows[0] as { key: string }).key.length).toBeLessThan(100);
    expect((rows[0] as { key: string }).key).toMatch(/^L0+… \(5001 characters\)$/);
    expect(rows[1]).toMatchObject({ ok: false, reason: 'variant_sku is longer than 100 characters (101)' });
    expect(rows[2]).toMatchObject({ ok: true });
  });

  it('rejects an oversized JSON element or XML row alone', async () => {
    const big = 'Y'.repeat(2 * 1024 * 1024);
    const json = `[\n{"sku":"A","quantity":1},\n{"sku":"${big}","quantity":1},\n{"sku":"B","quantity":2}\n]`;
    const xml = `<stock>\n<item><sku>A</sku><quantity>1</quantity></item>\n<item><sku>${big}</sku><quantity>1</quantity></item>\n<item sku="B" quantity="2"/>\n</stock>`;
    for (const [name, content] of [
      ['stock.json', json],
      ['stock.xml', xml],
    ] as const) {
      const rows = await collect(adapter(dropFolder({ [name]: content })).stock());
      expect(outline(rows), name).toEqual([
        'ok A',
        expect.stringMatching(
          new RegExp(
            `^reject ${name.replace('.', '\\.')}:3 .*larger than 1048576 characters \\(\\d+\\): skipped$`,
          ),
        ),
        'ok B',
      ]);
    }
  });
});

describe('file-level problems get one message for the file', () => {
  it('a CSV without a header line', async () => {
    const rows = await collect(
      adapter(dropFolder({ 'stock.csv': 'DEMO-0001,5\nDEMO-0002,6\nDEMO-0003,7\n' })).stock(),
    );
    expect(outline(rows)).toEqual([
      'reject stock.csv:1 @stock.csv:1: the file has no header line: the first line is data (cell 2 is "5"); the first line must name the columns, e.g. sku,quantity',
    ]);
  });

  it('a CSV header naming a column twice', async () => {
    const rows = await collect(
      adapter(dropFolder({ 'stock.csv': 'sku,quantity,SKU\nA,1,B\nC,2,D\n' })).stock(),
    );
    expect(outline(rows)).toEqual([
      'reject stock.csv:1 @stock.csv:1: the header names the column "SKU" twice (columns 1 and 3): which one holds the data is unclear',
    ]);
  });

  it('a JSON object wrapping the array, on one line or pretty-printed', async () => {
    const oneLine = '{"items": [{"sku": "A", "quantity": 1}, {"sku": "B", "quantity": 2}]}\n';
    const pretty =
      '{\n  "items": [\n    {"sku": "A", "quantity": 1},\n    {"sku": "B", "quantity": 2}\n  ]\n}\n';
    const inline = '{"items": [\n{"sku": "A", "quantity": 1}\n]}\n';
    for (const [name, text, line] of [
      ['stock.json', oneLine, 1],
      ['stock.json', pretty, 1],
      ['stock.ndjson', inline, 1],
    ] as const) {
      const rows = await collect(adapter(dropFolder({ [name]: text })).stock());
      expect(rows, text).toHaveLength(1);
      expect(rows[0]).toMatchObject({ ok: false, key: `${name}:${line}` });
      expect((rows[0] as { reason: string }).reason).toMatch(
        /^the file is one JSON object .*: the rows must be a JSON array \(\[\{\.\.\.\}, \{\.\.\.\}\]\) or one object per line, not wrapped in an object$/,
      );
    }
  });
});

describe('values checked before sending', () => {
  it('rejects whole numbers beyond 2^53 and a sale price above the price, naming the row', async () => {
    const dir = dropFolder({
      'stock.csv': 'sku,quantity\nA,9007199254740993\nB,5\n',
      'prices.csv': 'sku,price,sale_price\nC,100,120\nD,100,80\nE,100,100\n',
    });
    const stock = await collect(adapter(dir).stock());
    expect(outline(stock)).toEqual([
      'reject A @stock.csv:2: quantity is too large to be exact (beyond 2^53), got 9007199254740992',
      'ok B',
    ]);
    const prices = await collect<PriceRecord>(adapter(dir).prices());
    expect(outline(prices)).toEqual([
      'reject C @prices.csv:2: sale_price 120 is above price 100',
      'ok D',
      'ok E',
    ]);
  });
});
