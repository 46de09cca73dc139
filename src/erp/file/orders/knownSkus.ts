import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'csv-parse';
import { fileExists } from './atomicFile.js';

/**
 * The SKUs (and variant SKUs) the ERP knows, from DIR/stock.* and DIR/products.* (CSV or JSON),
 * read only for the `requireKnownSkus` check. Null when the ERP exports neither file.
 */
export async function readKnownSkus(root: string): Promise<Set<string> | null> {
  const skus = new Set<string>();
  let found = false;
  for (const base of ['stock', 'products']) {
    const csv = join(root, `${base}.csv`);
    const json = join(root, `${base}.json`);
    if (await fileExists(csv)) {
      found = true;
      await collectCsv(csv, skus);
    } else if (await fileExists(json)) {
      found = true;
      await collectJson(json, skus);
    }
  }
  return found ? skus : null;
}

/** Changes whenever one of the files readKnownSkus reads changes (size or modification time). */
export async function knownSkusSignature(root: string): Promise<string> {
  const parts: string[] = [];
  for (const name of ['stock.csv', 'stock.json', 'products.csv', 'products.json']) {
    const info = await stat(join(root, name)).catch(() => null);
    parts.push(info ? `${info.size}:${info.mtimeMs}` : '-');
  }
  return parts.join('|');
}

function add(skus: Set<string>, record: Record<string, unknown>): void {
  for (const key of ['sku', 'variant_sku']) {
    const value = record[key];
    if ((typeof value === 'string' && value.trim() !== '') || typeof value === 'number')
      skus.add(String(value).trim());
  }
}

async function collectCsv(path: string, skus: Set<string>): Promise<void> {
  const head = (await readFile(path, 'utf8')).slice(0, 4096).replace(/^\uFEFF/, '');
  const first = head.split(/\r?\n/, 1)[0] ?? '';
  const delimiter = first.split(';').length > first.split(',').length ? ';' : ',';
  const parser = createReadStream(path).pipe(
    parse({
      bom: true,
      delimiter,
      columns: (header: string[]) => header.map((h) => h.trim().toLowerCase()),
      skip_empty_lines: true,
      relax_column_count: true,
      trim: true,
    }),
  );
  for await (const record of parser as AsyncIterable<Record<string, unknown>>) add(skus, record);
}

async function collectJson(path: string, skus: Set<string>): Promise<void> {
  const text = (await readFile(path, 'utf8')).replace(/^\uFEFF/, '').trim();
  const records: unknown[] = text.startsWith('[')
    ? (JSON.parse(text) as unknown[])
    : text
        .split(/\r?\n/)
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as unknown);
  for (const record of records) {
    if (typeof record === 'object' && record !== null) add(skus, record as Record<string, unknown>);
  }
}
