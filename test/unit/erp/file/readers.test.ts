import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { csvRows } from '../../../../src/erp/file/readers/csvRows.js';
import { jsonRows } from '../../../../src/erp/file/readers/jsonRows.js';
import { ndjsonRows } from '../../../../src/erp/file/readers/ndjsonRows.js';
import type { RawBatches, RawError, RawItem, RawRow } from '../../../../src/erp/file/readers/RawItem.js';
import { xmlRows } from '../../../../src/erp/file/readers/xmlRows.js';

/** A stream factory that hands the text over in chunks of `size` bytes (cutting through anything). */
function chunked(text: string, size: number) {
  return () => {
    const bytes = Buffer.from(text, 'utf8');
    const parts: Buffer[] = [];
    for (let i = 0; i < bytes.length; i += size) parts.push(bytes.subarray(i, i + size));
    return Readable.from(parts, { objectMode: false });
  };
}

async function all(batches: RawBatches): Promise<RawItem[]> {
  const out: RawItem[] = [];
  for await (const batch of batches) out.push(...batch);
  return out;
}

/** CSV rows by position as header -> value, the way the other readers give them. */
function named(items: RawItem[]): (RawRow | RawError)[] {
  return items.map((item) => {
    if (!('cells' in item)) return item;
    const fields: Record<string, unknown> = {};
    item.columns.forEach((name, i) => {
      if (name !== '') fields[name] = item.cells[i] ?? '';
    });
    return { fields, line: item.line };
  });
}

const JSON_ARRAY =
  '\uFEFF[\n {"sku": "A", "note": "br{ace}s ] and \\"quotes\\"", "n": [1, {"x": 2}]},\n {"sku": "Ș"}\n]\n';

describe('JSON array reader', () => {
  it('gives the same rows and lines whatever the chunk size', async () => {
    const expected = [
      { fields: { sku: 'A', note: 'br{ace}s ] and "quotes"', n: [1, { x: 2 }] }, line: 2 },
      { fields: { sku: 'Ș' }, line: 3 },
    ];
    for (const size of [1, 2, 3, 7, 1024]) {
      expect(await all(jsonRows(chunked(JSON_ARRAY, size))), `chunk ${size}`).toEqual(expected);
    }
  });

  it('reads one object per line when the file starts with an object', async () => {
    const rows = await all(jsonRows(chunked('\n{"sku":"A"}\n{"sku":"B"}\n', 4)));
    expect(rows).toEqual([
      { fields: { sku: 'A' }, line: 2 },
      { fields: { sku: 'B' }, line: 3 },
    ]);
  });

  it('reports a broken element as one fatal item naming its line', async () => {
    const rows = await all(jsonRows(chunked('[\n{"sku":"A"},\n{"sku": B}\n]', 5)));
    expect(rows).toHaveLength(2);
    expect(rows[1]).toMatchObject({ line: 3, fatal: true });
    expect((rows[1] as { error: string }).error).toMatch(/^malformed JSON in the element starting at line 3/);
  });

  it('reports structural errors and truncation with line and column', async () => {
    const missingComma = await all(jsonRows(chunked('[\n{"sku":"A"}\n{"sku":"B"}]', 3)));
    expect(missingComma.at(-1)).toMatchObject({ line: 3, column: 1, fatal: true });
    expect((missingComma.at(-1) as { error: string }).error).toContain('expected "," or "]"');

    const truncated = await all(jsonRows(chunked('[\n{"sku":"A"},\n{"sku":"B"', 3)));
    expect(truncated.at(-1)).toMatchObject({ fatal: true });
    expect((truncated.at(-1) as { error: string }).error).toContain('unexpected end of file');

    const notArray = await all(jsonRows(chunked('"stock"', 3)));
    expect(notArray).toEqual([expect.objectContaining({ line: 1, column: 1, fatal: true })]);

    const empty = await all(jsonRows(chunked('  \n', 3)));
    expect(empty).toEqual([
      expect.objectContaining({ fatal: true, error: expect.stringContaining('no JSON') }),
    ]);
  });
});

describe('NDJSON reader', () => {
  it('rejects a bad line alone and goes on', async () => {
    const rows = await all(ndjsonRows(chunked('{"sku":"A"}\r\nnot json\n[1]\n\n{"sku":"B"}\n', 3)));
    expect(rows).toEqual([
      { fields: { sku: 'A' }, line: 1 },
      expect.objectContaining({ line: 2, fatal: false }),
      expect.objectContaining({ line: 3, fatal: false, error: 'malformed JSON: the line is not an object' }),
      { fields: { sku: 'B' }, line: 5 },
    ]);
  });
});

describe('XML reader', () => {
  const XML =
    '\uFEFF<?xml version="1.0" encoding="UTF-8"?>\n<stock>\n' +
    '  <item><sku>A &amp; B</sku><quantity> 5 </quantity></item>\n' +
    '  <item sku="C" variant_sku="C-XL" quantity="2"/>\n' +
    '  <row quantity="1"><sku><![CDATA[D<1>]]></sku></row>\n' +
    '</stock>\n';

  it('reads fields from child elements, attributes and CDATA, with lines, whatever the chunk size', async () => {
    const expected = [
      { fields: { sku: 'A & B', quantity: '5' }, line: 3 },
      { fields: { sku: 'C', variant_sku: 'C-XL', quantity: '2' }, line: 4 },
      { fields: { sku: 'D<1>', quantity: '1' }, line: 5 },
    ];
    for (const size of [1, 5, 4096])
      expect(await all(xmlRows(chunked(XML, size))), `chunk ${size}`).toEqual(expected);
  });

  it('reports a malformed document as a fatal item with line and column', async () => {
    const rows = await all(
      xmlRows(chunked('<stock>\n<item><sku>A</sku></item>\n<item><sku>B</item>\n</stock>', 6)),
    );
    const last = rows.at(-1) as { error: string; line: number; fatal: boolean };
    expect(last.fatal).toBe(true);
    expect(last.line).toBe(3);
    expect(last.error).toMatch(/^malformed XML at line 3, column \d+: /);
  });
});

describe('CSV reader', () => {
  it('reads quoted cells, multi-line values and short rows, with a BOM', async () => {
    const csv = '\uFEFFsku;quantity;note\n"A;1";5;"two\nlines"\nB;3\n\n;;\nC;4;x\n';
    const rows = named(await all(csvRows(chunked(csv, 3), { delimiter: ';' })));
    expect(rows.map((r) => ('fields' in r ? r.fields : r))).toEqual([
      { sku: 'A;1', quantity: '5', note: 'two\nlines' },
      { sku: 'B', quantity: '3', note: '' },
      { sku: 'C', quantity: '4', note: 'x' },
    ]);
    expect(rows.map((r) => r.line)).toEqual([2, 4, 7]);
  });

  it('ends with one reject naming the line of an unclosed quote', async () => {
    const rows = named(await all(csvRows(chunked('sku,quantity\nA,1\n"B,2\nC,3\n', 4), { delimiter: ',' })));
    expect(rows).toEqual([
      { fields: { sku: 'A', quantity: '1' }, line: 2 },
      {
        error:
          'malformed CSV: a quote opened on this line is never closed, so the rest of the file was not read',
        line: 3,
        fatal: false,
      },
    ]);
  });

  it('skips a record with a stray quote and goes on, whatever the chunk size', async () => {
    const csv = 'sku,quantity\nA,1\nDEMO-0003 12" pipe,8\n"X"y,1\nB,2\n';
    for (const size of [1, 3, 1024]) {
      const rows = named(await all(csvRows(chunked(csv, size), { delimiter: ',' })));
      expect(
        rows.map((r) => ('fields' in r ? `${String(r.fields.sku)}@${r.line}` : `reject@${r.line}`)),
        `chunk ${size}`,
      ).toEqual(['A@2', 'reject@3', 'reject@4']);
    }
  });

  it('gives the same rows and lines whatever the chunk size, quote-free lines split by hand, the rest parsed', async () => {
    // CRLF, a lone CR, a blank line, spaces to trim, Unicode cut anywhere by small chunks, a
    // quote halfway (the parser reads from its chunk on) and a last line without a line end.
    const csv = '\uFEFFsku, quantity\r\nȘA-1 , 1\r\nB,2\rC,3\n\n D ,4,extra\n"E,1",5\r\nF,6\nG,x\nH';
    const expected = [
      { fields: { sku: 'ȘA-1', quantity: '1' }, line: 2 },
      { fields: { sku: 'B', quantity: '2' }, line: 3 },
      { fields: { sku: 'C', quantity: '3' }, line: 4 },
      { fields: { sku: 'D', quantity: '4' }, line: 6 },
      { fields: { sku: 'E,1', quantity: '5' }, line: 7 },
      { fields: { sku: 'F', quantity: '6' }, line: 8 },
      { fields: { sku: 'G', quantity: 'x' }, line: 9 },
      { fields: { sku: 'H', quantity: '' }, line: 10 },
    ];
    for (const size of [1, 2, 3, 5, 8, 13, 1024]) {
      const rows = named(await all(csvRows(chunked(csv, size), { delimiter: ',' })));
      expect(rows, `chunk ${size}`).toEqual(expected);
    }
    const plain = named(await all(csvRows(chunked(csv.replace('"E,1"', 'E'), 4), { delimiter: ',' })));
    expect(plain.map((r) => r.line)).toEqual([2, 3, 4, 6, 7, 8, 9, 10]);
  });

  it('reports a header that is data as one fatal item, quote-free or not', async () => {
    for (const csv of ['A-1,5\nB,2\n', '"A-1",5\nB,2\n']) {
      const rows = await all(csvRows(chunked(csv, 1024), { delimiter: ',' }));
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ line: 1, fatal: true });
      expect((rows[0] as RawError).error).toMatch(/^the file has no header line/);
    }
  });
});
