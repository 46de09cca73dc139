import { parse } from 'csv-parse';
import { drainStream } from './drainStream.js';
import type { OpenStream, RawItem } from './RawItem.js';

interface CsvRecord {
  record: string[];
  info: { lines: number };
}

export interface CsvOptions {
  delimiter: ',' | ';';
}

/**
 * Streams CSV rows as header -> value objects. The first non-empty line is the header. A row with
 * fewer cells than the header leaves the rest empty; a quoting error ends the file with a fatal item.
 */
export async function* csvRows(open: OpenStream, options: CsvOptions): AsyncIterable<RawItem> {
  const source = open();
  const parser = source.pipe(
    parse({
      delimiter: options.delimiter,
      bom: true,
      info: true,
      relax_column_count: true,
      skip_empty_lines: true,
      trim: true,
    }),
  );
  let header: string[] | undefined;
  try {
    for await (const { record, info } of drainStream<CsvRecord>(parser)) {
      if (!header) {
        header = record;
        continue;
      }
      if (record.every((cell) => cell === '')) continue;
      const fields: Record<string, unknown> = {};
      header.forEach((name, i) => {
        if (name !== '' && !(name in fields)) fields[name] = record[i] ?? '';
      });
      yield { fields, line: info.lines };
    }
  } catch (error) {
    const lines = (error as { lines?: number }).lines ?? 0;
    yield { error: `malformed CSV: ${(error as Error).message}`, line: lines, fatal: true };
  } finally {
    source.destroy();
  }
}

/** `;` when the header line holds more semicolons than commas (outside quotes), else `,`. */
export function detectDelimiter(headLine: string): ',' | ';' {
  let commas = 0;
  let semicolons = 0;
  let quoted = false;
  for (const ch of headLine) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && ch === ',') commas++;
    else if (!quoted && ch === ';') semicolons++;
    else if (!quoted && (ch === '\n' || ch === '\r')) break;
  }
  return semicolons > commas ? ';' : ',';
}
