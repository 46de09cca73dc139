import { Readable } from 'node:stream';
import { parse, type Parser } from 'csv-parse';
import { printable } from '../../../domain/printable.js';
import { drainStream } from '../../drainStream.js';
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

/** What the reader knows between records. */
interface CsvState {
  header: string[] | undefined;
  /** The line the next record starts on. */
  nextLine: number;
  /** The reject of the record being skipped, until its end is found. */
  skipping: RawError | undefined;
}

const QUOTE = 0x22;
const LF = 10;
const CR = 13;

/**
 * Streams CSV rows as cells by position, with the header (the first non-empty line) as their
 * columns. A row with fewer cells than the header leaves the rest empty. A record the parser
 * cannot read (a stray quote inside a cell) is a reject of its line and reading goes on; an
 * unclosed quote swallows the rest of the file, so it is one reject naming the line the quote
 * opened on. A header that is not one (a data line first) or names a column twice is one fatal
 * item for the file.
 *
 * Text without a quote is split by hand (PlainCsv), four times faster than csv-parse: there every
 * line end ends a record and every delimiter a cell. From the first chunk holding a quote on,
 * csv-parse reads the rest of the file.
 */
export async function* csvRows(open: OpenStream, options: CsvOptions): RawBatches {
  const source = open('lines');
  const state: CsvState = { header: undefined, nextLine: 1, skipping: undefined };
  const plain = new PlainCsv(options.delimiter);
  // The stream's own iterator: one chunk at a time under the stream's backpressure, so a read
  // never holds more than a chunk's rows beyond what its consumer took.
  const chunks = (source as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  try {
    for (;;) {
      const next = await chunks.next();
      if (next.done) break;
      const chunk = next.value;
      if (chunk.indexOf(QUOTE) !== -1) {
        const rest = Readable.from(remaining(plain.handOver(chunk), chunks));
        yield* parsedRows(rest, state, { delimiter: options.delimiter, bom: plain.atStart });
        return;
      }
      const out: RawItem[] = [];
      const fatal = plain.split(chunk, state, out);
      if (out.length) yield out;
      if (fatal) return;
    }
    const out: RawItem[] = [];
    plain.end(state, out);
    if (out.length) yield out;
  } finally {
    source.destroy();
  }
}

/** The chunk that holds the first quote, then the rest of the stream. */
async function* remaining(first: Buffer, chunks: AsyncIterator<Buffer>): AsyncGenerator<Buffer> {
  yield first;
  for (;;) {
    const next = await chunks.next();
    if (next.done) return;
    yield next.value;
  }
}

/** One record (its cells and the line it starts on) into `out`; true when it ends the file (a fatal item). */
function takeRecord(state: CsvState, record: string[], line: number, out: RawItem[]): boolean {
  if (record.every((cell) => cell === '')) return false;
  if (!state.header) {
    const problem = headerProblem(record);
    if (problem) {
      out.push({ error: problem, line, fatal: true });
      return true;
    }
    state.header = record;
    return false;
  }
  out.push({ cells: record, columns: state.header, line });
  return false;
}

/**
 * Splits quote-free text into records: lines end at LF, CRLF or a lone CR (as the parser's
 * record delimiters), cells at the delimiter, trimmed as the parser trims them. The bytes of a
 * line not ended in its chunk wait for the next one (a line end never cuts a UTF-8 sequence).
 */
class PlainCsv {
  readonly #delimiter: string;
  #pending: Buffer | undefined;
  /** The last chunk ended with CR: an LF opening the next one ends no other line. */
  #afterCr = false;
  #started = false;

  constructor(delimiter: string) {
    this.#delimiter = delimiter;
  }

  /** Nothing of the file was read yet (a BOM may still come). */
  get atStart(): boolean {
    return !this.#started;
  }

  split(chunk: Buffer, state: CsvState, out: RawItem[]): boolean {
    let bytes = this.#pending ? Buffer.concat([this.#pending, chunk]) : chunk;
    this.#pending = undefined;
    if (this.#afterCr) {
      this.#afterCr = false;
      if (bytes[0] === LF) bytes = bytes.subarray(1);
    }
    const last = Math.max(bytes.lastIndexOf(LF), bytes.lastIndexOf(CR));
    if (last < bytes.length - 1) {
      this.#pending = Buffer.from(bytes.subarray(last + 1));
      bytes = bytes.subarray(0, last + 1);
    }
    if (!bytes.length) return false;
    let text = bytes.toString('utf8');
    if (!this.#started) {
      this.#started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    let lineStart = 0;
    const length = text.length;
    for (let i = 0; i < length; i++) {
      const code = text.charCodeAt(i);
      if (code !== LF && code !== CR) continue;
      const line = text.slice(lineStart, i);
      if (code === CR) {
        if (i + 1 === length) this.#afterCr = true;
        else if (text.charCodeAt(i + 1) === LF) i++;
      }
      lineStart = i + 1;
      if (takeRecord(state, this.#cells(line), state.nextLine++, out)) return true;
    }
    return false;
  }

  /** The last line, when the file does not end with a line end. */
  end(state: CsvState, out: RawItem[]): void {
    if (!this.#pending) return;
    let text = this.#pending.toString('utf8');
    if (!this.#started && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    this.#pending = undefined;
    takeRecord(state, this.#cells(text), state.nextLine, out);
  }

  /** What the parser must read first: the unfinished line, then `chunk` (less the LF of a split CRLF). */
  handOver(chunk: Buffer): Buffer {
    let rest = chunk;
    if (this.#afterCr && rest[0] === LF) rest = rest.subarray(1);
    this.#afterCr = false;
    const pending = this.#pending;
    this.#pending = undefined;
    return pending ? Buffer.concat([pending, rest]) : rest;
  }

  #cells(line: string): string[] {
    const cells = line.split(this.#delimiter);
    for (let i = 0; i < cells.length; i++) cells[i] = cells[i]!.trim();
    return cells;
  }
}

/** The rest of the file through csv-parse (quoted cells, escaped quotes, line breaks inside cells). */
async function* parsedRows(
  input: Readable,
  state: CsvState,
  options: CsvOptions & { bom: boolean },
): RawBatches {
  const parser: Parser = parse({
    delimiter: options.delimiter,
    bom: options.bom,
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
  input.on('error', (error) => parser.destroy(error));
  input.pipe(parser);

  try {
    for await (const records of drainStream<CsvRecord | CsvSkip | CsvSkipEnd>(parser)) {
      const out: RawItem[] = [];
      for (const item of records) {
        if ('skipped' in item) {
          // A second error in the same record: only an unclosed quote adds to what was said.
          if (state.skipping) {
            if (isUnclosedQuote(item.skipped))
              state.skipping.error += '; the quote is never closed, so the rest of the file was not read';
            continue;
          }
          state.skipping = { error: skipReason(item.skipped), line: state.nextLine, fatal: false };
          out.push(state.skipping);
          // The parser cannot find the end of a record past its size bound: nothing after it is sound.
          if (item.skipped.code === 'CSV_MAX_RECORD_SIZE') {
            yield out;
            return;
          }
          continue;
        }
        if ('skippedRaw' in item) {
          state.skipping = undefined;
          state.nextLine += countLineBreaks(item.skippedRaw);
          continue;
        }
        const { record, raw } = item;
        const line = state.nextLine;
        state.nextLine += countLineBreaks(raw);
        if (takeRecord(state, record, line, out)) {
          yield out;
          return;
        }
      }
      if (out.length) yield out;
    }
  } catch (error) {
    // Only the parser's own errors mean a malformed file; a read error is not the data's fault.
    if (!String((error as { code?: unknown }).code ?? '').startsWith('CSV_')) throw error;
    yield [
      {
        error: `malformed CSV: ${printable((error as Error).message, 200)}`,
        line: state.nextLine,
        fatal: true,
      },
    ];
  } finally {
    input.destroy();
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
