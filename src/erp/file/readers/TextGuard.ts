import { isUtf8 } from 'node:buffer';
import { Transform, type TransformCallback } from 'node:stream';
import type Iconv from 'iconv-lite';
import { iconvLite } from '../iconvLite.js';
import { isUtf8Name } from '../encodings.js';
import type { RawError } from './RawItem.js';

/** The longest line of a line-based file (CSV, NDJSON), in bytes as stored. */
export const MAX_LINE_BYTES = 1024 * 1024;

export interface TextGuardOptions {
  /** An iconv-lite encoding name; `utf-8` (the default) validates instead of converting. */
  encoding: string;
  /**
   * `lines` (CSV, NDJSON): a line that is too long or cannot be decoded is emptied (its line end
   * kept, so later line numbers stay right) and becomes a reject of that line alone.
   * `document` (JSON array, XML): undecodable bytes end the file with one fatal error (a broken
   * document cannot be trusted); lines are not bounded (minified files are one line), the readers
   * bound their elements and fields instead.
   */
  mode: 'lines' | 'document';
  maxLineBytes?: number;
}

const LF = 10;
const CR = 13;

/**
 * Bytes of an input file in, UTF-8 bytes out: decodes the configured encoding, refuses bytes that
 * are not valid UTF-8 in UTF-8 mode (instead of replacing them, which would turn `A\xff` into
 * another SKU) and bounds line length while streaming, so a 50 MB line is never held. What it
 * refused is in `issues` (lines, in order) or `fatal`, for the reader to report in place.
 */
export class TextGuard extends Transform {
  readonly issues: RawError[] = [];
  fatal: RawError | undefined;
  readonly #utf8: boolean;
  readonly #encoding: string;
  readonly #mode: 'lines' | 'document';
  readonly #max: number;
  readonly #decoder: ReturnType<typeof Iconv.getDecoder> | undefined;
  /** Lines passed on so far (the next byte is on line `#line + 1`). */
  #line = 0;
  #lastWasCr = false;
  /** Lines mode: the unfinished last line; document mode: an unfinished UTF-8 sequence. */
  #tail: Buffer = Buffer.alloc(0);
  /** Lines mode: bytes of an over-long line dropped so far (its end not yet seen). */
  #dropping = 0;

  constructor(options: TextGuardOptions) {
    super();
    this.#encoding = options.encoding;
    this.#utf8 = isUtf8Name(options.encoding);
    this.#mode = options.mode;
    this.#max = options.maxLineBytes ?? MAX_LINE_BYTES;
    this.#decoder =
      !this.#utf8 && options.mode === 'document' ? iconvLite().getDecoder(options.encoding) : undefined;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    if (this.fatal) return done();
    if (this.#mode === 'document') this.#document(chunk, false);
    else this.#lines(chunk);
    done();
  }

  override _flush(done: TransformCallback): void {
    if (this.fatal) return done();
    if (this.#mode === 'document') {
      this.#document(Buffer.alloc(0), true);
    } else if (this.#dropping > 0) {
      this.#tooLong(this.#dropping);
    } else if (this.#tail.length) {
      this.#emitLines(this.#tail);
    }
    done();
  }

  #lines(input: Buffer): void {
    let chunk = input;
    if (this.#dropping > 0) {
      const end = nextLineEnd(chunk, 0);
      if (end === -1) {
        this.#dropping += chunk.length;
        return;
      }
      this.#tooLong(this.#dropping + end);
      chunk = chunk.subarray(end);
    }
    const last = lastLineEnd(chunk);
    if (last === -1) {
      this.#hold(chunk);
      return;
    }
    const head = this.#tail.length
      ? Buffer.concat([this.#tail, chunk.subarray(0, last + 1)])
      : chunk.subarray(0, last + 1);
    this.#tail = Buffer.alloc(0);
    // A chunk no longer than the bound holds no over-long line but maybe its first.
    if (head.length > this.#max) this.#emitBounded(head);
    else this.#emitLines(head);
    this.#hold(chunk.subarray(last + 1));
  }

  /** Keeps the unfinished last line, or starts dropping it once it is over the bound. */
  #hold(part: Buffer): void {
    if (this.#tail.length + part.length > this.#max) {
      this.#dropping = this.#tail.length + part.length;
      this.#tail = Buffer.alloc(0);
      return;
    }
    this.#tail = this.#tail.length ? Buffer.concat([this.#tail, part]) : Buffer.from(part);
  }

  /** Passes complete lines on (`text` ends with a line end), emptying each one over the bound. */
  #emitBounded(text: Buffer): void {
    let from = 0;
    let start = 0;
    while (start < text.length) {
      const end = nextLineEnd(text, start);
      if (end === -1) break;
      if (end - start > this.#max) {
        this.#emitLines(text.subarray(from, start));
        this.#tooLong(end - start);
        from = end; // the line end itself goes on, so the lines after keep their numbers
      }
      start = end + lineEndLength(text, end);
    }
    this.#emitLines(text.subarray(from));
  }

  /** Decodes whole lines (or validates them) and passes them on, counting them. */
  #emitLines(text: Buffer): void {
    if (this.#utf8) {
      if (isUtf8(text)) this.#pass(text);
      else this.#emitValidLines(text);
      return;
    }
    if (!text.length) return;
    this.#countLines(text);
    this.push(Buffer.from(iconvLite().decode(text, this.#encoding), 'utf8'));
  }

  /** Some line of `text` is not UTF-8: pass the good ones, empty the bad ones. */
  #emitValidLines(text: Buffer): void {
    let start = 0;
    while (start < text.length) {
      const end = nextLineEnd(text, start);
      const stop = end === -1 ? text.length : end + lineEndLength(text, end);
      const content = text.subarray(start, end === -1 ? text.length : end);
      if (isUtf8(content)) {
        this.#pass(text.subarray(start, stop));
      } else {
        this.issues.push({
          error: `the line is not valid UTF-8 (byte ${describeBadByte(content)}); set erp.encoding if the export uses another encoding`,
          line: this.#line + 1,
          fatal: false,
        });
        this.#pass(text.subarray(content.length + start, stop));
      }
      start = stop;
    }
  }

  #tooLong(bytes: number): void {
    this.issues.push({
      error: `the line is longer than ${formatBytes(this.#max)} (${formatBytes(bytes)}): skipped`,
      line: this.#line + 1,
      fatal: false,
    });
    this.#dropping = 0;
  }

  #pass(text: Buffer): void {
    if (!text.length) return;
    this.#countLines(text);
    this.push(text);
  }

  /** Line ends as the CSV reader counts them: LF, CRLF (once) and a lone CR. */
  #countLines(text: Buffer): void {
    let count = 0;
    for (let at = text.indexOf(LF); at !== -1; at = text.indexOf(LF, at + 1)) count++;
    // A CR last in a chunk counts now; the LF that may open the next chunk then does not.
    for (let at = text.indexOf(CR); at !== -1; at = text.indexOf(CR, at + 1))
      if (text[at + 1] !== LF) count++;
    if (this.#lastWasCr && text[0] === LF) count--;
    this.#lastWasCr = text[text.length - 1] === CR;
    this.#line += count;
  }

  #document(chunk: Buffer, end: boolean): void {
    if (this.#decoder) {
      const text = end ? this.#decoder.end() : this.#decoder.write(chunk);
      if (text) this.push(Buffer.from(text, 'utf8'));
      return;
    }
    let text = this.#tail.length ? Buffer.concat([this.#tail, chunk]) : chunk;
    const complete = end ? text.length : completeUtf8Length(text);
    this.#tail = Buffer.from(text.subarray(complete));
    text = text.subarray(0, complete);
    if (!text.length) return;
    if (isUtf8(text)) {
      this.#passDocument(text);
      return;
    }
    // Find the first bad line for the message; pass what comes before it so that nothing is lost.
    let start = 0;
    for (;;) {
      const lf = text.indexOf(LF, start);
      const stop = lf === -1 ? text.length : lf + 1;
      const line = text.subarray(start, stop);
      if (!isUtf8(line)) {
        this.#passDocument(text.subarray(0, start));
        this.fatal = {
          error: `the file is not valid UTF-8 at line ${this.#line + 1} (byte ${describeBadByte(line)}); set erp.encoding if the export uses another encoding`,
          line: this.#line + 1,
          fatal: true,
        };
        this.push(null);
        return;
      }
      start = stop;
    }
  }

  #passDocument(text: Buffer): void {
    if (!text.length) return;
    for (let at = text.indexOf(LF); at !== -1; at = text.indexOf(LF, at + 1)) this.#line++;
    this.push(text);
  }
}

/** Index of the next CR or LF from `start`, or -1. */
function nextLineEnd(text: Buffer, start: number): number {
  const lf = text.indexOf(LF, start);
  const cr = text.indexOf(CR, start);
  if (lf === -1) return cr;
  if (cr === -1) return lf;
  return Math.min(lf, cr);
}

/** 2 for CRLF, else 1. */
function lineEndLength(text: Buffer, at: number): number {
  return text[at] === CR && text[at + 1] === LF ? 2 : 1;
}

/** Index of the last byte of the last line end (a CR last in the chunk may start a CRLF: fine, LF then ends an empty line). */
function lastLineEnd(chunk: Buffer): number {
  return Math.max(chunk.lastIndexOf(LF), chunk.lastIndexOf(CR));
}

/** The length of the prefix of `text` that does not end inside a UTF-8 sequence. */
function completeUtf8Length(text: Buffer): number {
  let i = text.length - 1;
  let back = 0;
  while (i >= 0 && back < 3 && (text[i]! & 0xc0) === 0x80) {
    i--;
    back++;
  }
  if (i < 0) return text.length;
  const lead = text[i]!;
  const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return text.length - i >= need ? text.length : i;
}

/** `0xFF at byte 6 of the line`: the first byte that does not start a valid UTF-8 sequence. */
function describeBadByte(line: Buffer): string {
  const at = firstInvalidUtf8(line);
  const byte = line[at] ?? 0;
  return `0x${byte.toString(16).toUpperCase().padStart(2, '0')} at byte ${at + 1} of the line`;
}

function firstInvalidUtf8(text: Buffer): number {
  let i = 0;
  while (i < text.length) {
    const lead = text[i]!;
    if (lead < 0x80) {
      i++;
      continue;
    }
    const size =
      lead >= 0xc2 && lead <= 0xdf
        ? 2
        : lead >= 0xe0 && lead <= 0xef
          ? 3
          : lead >= 0xf0 && lead <= 0xf4
            ? 4
            : 0;
    if (size === 0 || i + size > text.length || !isUtf8(text.subarray(i, i + size))) return i;
    i += size;
  }
  return text.length;
}

function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(bytes % (1024 * 1024) ? 1 : 0)} MiB`;
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} KiB`;
  return `${bytes} bytes`;
}
