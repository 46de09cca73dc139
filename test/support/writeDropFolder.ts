import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FileErpConfig } from '../../src/erp/file/fileConfigSchema.js';
import type { ContractKind, ContractRow } from '../contract/erpAdapterContract.js';

export type DropFormat = 'csv' | 'json' | 'ndjson' | 'xml';

/** Text of one file of `format` holding `rows`, and the line each row starts on. */
export function render(
  format: DropFormat,
  kind: ContractKind,
  rows: ContractRow[],
): { text: string; lines: number[] } {
  const fields = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  switch (format) {
    case 'csv': {
      const quote = (v: string) => `"${v.replace(/"/g, '""')}"`;
      const body = rows.map((r) => fields.map((f) => quote(r[f] ?? '')).join(','));
      return { text: [fields.join(','), ...body].join('\n') + '\n', lines: rows.map((_, i) => i + 2) };
    }
    case 'ndjson':
      return { text: rows.map((r) => JSON.stringify(r)).join('\n') + '\n', lines: rows.map((_, i) => i + 1) };
    case 'json':
      return {
        text: `[\n${rows.map((r) => JSON.stringify(r)).join(',\n')}\n]\n`,
        lines: rows.map((_, i) => i + 2),
      };
    case 'xml': {
      const esc = (v: string) => v.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
      const items = rows.map(
        (r) =>
          `  <item>${Object.entries(r)
            .map(([k, v]) => `<${k}>${esc(v)}</${k}>`)
            .join('')}</item>`,
      );
      return {
        text: `<?xml version="1.0" encoding="UTF-8"?>\n<${kind}>\n${items.join('\n')}\n</${kind}>\n`,
        lines: rows.map((_, i) => i + 3),
      };
    }
  }
}

/**
 * DIR/<kind>.<format> holding `rows` (none: no file), written long ago as far as the stability
 * wait can tell, so it is read at once. Returns the line each row starts on.
 */
export function writeDropFile(
  dir: string,
  kind: ContractKind,
  format: DropFormat,
  rows: ContractRow[],
): number[] {
  const path = join(dir, `${kind}.${format}`);
  if (rows.length === 0) {
    rmSync(path, { force: true });
    return [];
  }
  const { text, lines } = render(format, kind, rows);
  writeFileSync(path, text);
  const past = new Date(Date.now() - 60_000);
  utimesSync(path, past, past);
  return lines;
}

/** A temporary drop folder holding the dataset in one format; empty kinds get no file. */
export function writeDropFolder(dataset: Record<ContractKind, ContractRow[]>, format: DropFormat) {
  const dir = mkdtempSync(join(tmpdir(), `erp-drop-${format}-`));
  const lines = new Map<ContractKind, number[]>();
  for (const kind of ['stock', 'prices', 'products'] as const) {
    lines.set(kind, writeDropFile(dir, kind, format, dataset[kind]));
  }
  return {
    dir,
    locate: (kind: ContractKind, index: number) => ({
      file: `${kind}.${format}`,
      line: lines.get(kind)![index]!,
    }),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

export function fileConfig(dir: string, overrides: Partial<FileErpConfig> = {}): FileErpConfig {
  return {
    type: 'file',
    path: dir,
    decimalComma: false,
    delimiter: 'auto',
    encoding: 'utf-8',
    columns: {},
    stableMs: 200,
    stableTimeoutMs: 5_000,
    archive: false,
    stockSubtractsImportedOrders: false,
    outbox: { format: 'json', requireKnownSkus: false },
    ...overrides,
  };
}
