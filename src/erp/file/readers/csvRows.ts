import { parse, type Parser } from 'csv-parse';
import { printable } from '../../../domain/printable.js';
import { drainStream } from './drainStream.js';
import type { OpenStream, RawBatches, RawError, RawItem } from './RawItem.js';

interface CsvRecord {
  record: string[];
  raw: string;
}

/** csv-parse found a record it cannot read; it skips to the record's end and goes on. */
interface CsvSkip {
  skipped: CsvParseError;
}

/** The whole text of the record skipped last, once its end was found (to count its lines). */
interface CsvSkipEnd {
  skippedRaw: string;
}

interface CsvParseError extends Error {
  code?: string;
  index?: number;
}

interface ParserApi {
  state: { recordHasError: boolean; rawBuffer: { toString(encoding?: string): string } };
  __resetRecord(): void;
}

/** A record may span lines (quoted line breaks), each at most MAX_LINE_BYTES; the record as a whole this. */
export const MAX_CSV_RECORD_BYTES = 4 * 1024 * 1024;

export interface CsvOptions {
  delimiter: ',' | ';';
}

/**
 * Streams CSV rows as header -> value objects. The first non-empty line is the header. A row with
 * fewer cells than the header leaves the rest empty. A record the parser cannot read (a stray
 * quote inside a cell) is a reject of its line and reading goes on; an unclosed quote swallows the
 * rest of the file, so it is one reject naming the line the quote opened on. A header that is not
 * one (a data line first) or names a column twice is one fatal item for the file.
 */
export async function* csvRows(open: OpenStream, options: CsvOptions): RawBatches {
  const source = open('lines');
  const parser: Parser = parse({
    delimiter: options.delimiter,
    bom: true,
    // `raw` (to count lines) costs far less than `info`, which made reading three times slower.
    raw: true,
    record_delimiter: ['\r\n', '\n', '\r'],
    relax_column_count: true,
    trim: true,
    // Lines are bounded by the TextGuard; this bounds a quoted cell that never closes.
    max_record_size: MAX_CSV_RECORD_BYTES,
    // A bad record is reported in place, among the records (same stream, same order).
    skip_records_with_error: true,
    on_skip: (error) => {
      if (error) parser.push({ skipped: error } satisfies CsvSkip);
    },
  });
  // The parser drops a skipped record's text at its end without a word; its lines must still be
  // counted for the records after it to keep their numbers.
  const api = (parser as unknown as { api: ParserApi }).api;
  const resetRecord = api.__resetRecord;
  api.__resetRecord = function (this: ParserApi) {
    if (this.state.recordHasError)
      parser.push({ skippedRaw: this.state.rawBuffer.toString('utf8') } satisfies CsvSkipEnd);
    resetRecord.call(this);
  };
  source.on('error', (error) => parser.destroy(error));
  source.pipe(parser);

  let header: string[] | undefined;
  let nextLine = 1;
  /** The reject of the record being skipped, until its end is found. */
  let skipping: RawError | undefined;
  try {
    for await (const records of drainStream<CsvRecord | CsvSkip | CsvSkipEnd>(parser)) {
      const out: RawItem[] = [];
      for (const item of records) {
        if ('skipped' in item) {
          // A second error in the same record: only an unclosed quote adds to what was said.
          if (skipping) {
            if (isUnclosedQuote(item.skipped))
              skipping.error += '; the quote is never closed, so the rest of the file was not read';
            continue;
          }
          skipping = { error: skipReason(item.skipped), line: nextLine, fatal: false };
          out.push(skipping);
          // The parser cannot find the end of a record past its size bound: nothing after it is sound.
          if (item.skipped.code === 'CSV_MAX_RECORD_SIZE') {
            yield out;
            return;
          }
          continue;
        }
        if ('skippedRaw' in item) {
          skipping = undefined;
          nextLine += countLineBreaks(item.skippedRaw);
          continue;
        }
        const { record, raw } = item;
        const line = nextLine;
        nextLine += countLineBreaks(raw);
        if (record.every((cell) => cell === '')) continue;
        if (!header) {
          const problem = headerProblem(record);
          if (problem) {
            out.push({ error: problem, line, fatal: true });
            yield out;
            return;
          }
          header = record;
          continue;
        }
        const fields: Record<string, unknown> = {};
        for (let i = 0; i < header.length; i++) {
          const name = header[i]!;
          if (name !== '') fields[name] = record[i] ?? '';
        }
        out.push({ fields, line });
      }
      if (out.length) yield out;
    }
  } catch (error) {
    // Only the parser's own errors mean a malformed file; a read error is not the data's fault.
    if (!String((error as { code?: unknown }).code ?? '').startsWith('CSV_')) throw error;
    yield [
      { error: `malformed CSV: ${printable((error as Error).message, 200)}`, line: nextLine, fatal: true },
    ];
  } finally {
    source.destroy();
  }
}

function isUnclosedQuote(error: CsvParseError): boolean {
  return error.code === 'CSV_QUOTE_NOT_CLOSED';
}

function skipReason(error: CsvParseError): string {
  const cell = error.index !== undefined ? ` (cell ${error.index + 1})` : '';
  switch (error.code) {
    case 'INVALID_OPENING_QUOTE':
    case 'CSV_INVALID_OPENING_QUOTE':
      return `malformed CSV: a quote inside an unquoted cell${cell}; quote the whole cell and double the quote ("12"" pipe")`;
    case 'CSV_INVALID_CLOSING_QUOTE':
      return `malformed CSV: text after the closing quote of a quoted cell${cell}`;
    case 'CSV_MAX_RECORD_SIZE':
      return `malformed CSV: a record longer than ${MAX_CSV_RECORD_BYTES / (1024 * 1024)} MiB starts here (most likely a quote that is never closed), so the rest of the file was not read`;
    case 'CSV_QUOTE_NOT_CLOSED':
      return 'malformed CSV: a quote opened on this line is never closed, so the rest of the file was not read';
    default:
      return `malformed CSV: ${printable(error.message, 200)}`;
  }
}

/**
 * Why the first line cannot be the header, or undefined: a cell that is a number means the file
 * starts with data (exports without a header line); a name twice leaves unclear which column is meant.
 */
function headerProblem(cells: string[]): string | undefined {
  const number = cells.findIndex((cell) => /^[+-]?\d+([.,]\d+)?$/.test(cell));
  if (number !== -1) {
    return `the file has no header line: the first line is data (cell ${number + 1} is ${printable(
      JSON.stringify(cells[number]),
    )}); the first line must name the columns, e.g. sku,quantity`;
  }
  const seen = new Map<string, number>();
  for (const [index, cell] of cells.entries()) {
    const name = cell.trim().toLowerCase();
    if (name === '') continue;
    const first = seen.get(name);
    if (first !== undefined) {
      return `the header names the column ${printable(JSON.stringify(cell))} twice (columns ${first + 1} and ${index + 1}): which one holds the data is unclear`;
    }
    seen.set(name, index);
  }
  return undefined;
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

function countLineBreaks(raw: string): number {
  let count = 0;
  for (let at = raw.indexOf('\n'); at !== -1; at = raw.indexOf('\n', at + 1)) count++;
  // A lone CR ends a line too (old Mac exports); CRLF was counted once by its LF.
  if (raw.endsWith('\r')) count++;
  return count;
}
