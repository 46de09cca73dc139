import { printable } from '../../../domain/printable.js';
import { ndjsonRows } from './ndjsonRows.js';
import { BOM, MAX_RECORD_CHARS, type OpenStream, type RawBatches, type RawItem } from './RawItem.js';

/**
 * A JSON file: an array of objects, streamed element by element (the array is never held in
 * memory), or one object per line (NDJSON) when the file starts with `{`. Any structural error
 * in an array is fatal: the whole file is one reject naming line and column. An element larger
 * than MAX_RECORD_CHARS is not held: it is a reject of its line alone.
 */
export async function* jsonRows(open: OpenStream): RawBatches {
  const scanner = new JsonArrayScanner();
  const stream = open('document');
  stream.setEncoding('utf8');
  let first = true;
  try {
    for await (let chunk of stream as AsyncIterable<string>) {
      if (first) {
        if (chunk.startsWith(BOM)) chunk = chunk.slice(1);
        const start = chunk.trimStart()[0];
        if (start === undefined) {
          scanner.push(chunk);
          continue;
        }
        first = false;
        if (start === '{') {
          stream.destroy();
          yield* ndjsonRows(open);
          return;
        }
      }
      const items = scanner.push(chunk);
      if (items.length) yield items;
      if (scanner.failed) return;
    }
  } finally {
    stream.destroy();
  }
  const last = scanner.end();
  if (last.length) yield last;
}

const enum State {
  BeforeArray,
  BeforeElement, // after '[' : an element or ']'
  AfterElement, // a ',' or ']'
  AfterComma, // an element
  InElement,
  AfterArray,
}

/** Splits a JSON array into its elements as text and parses each one; tracks lines and columns. */
class JsonArrayScanner {
  #state = State.BeforeArray;
  #line = 1;
  #column = 0;
  #depth = 0;
  #inString = false;
  #escaped = false;
  #parts: string[] = [];
  #size = 0;
  #elementLine = 0;
  #failed = false;

  get failed(): boolean {
    return this.#failed;
  }

  push(chunk: string): RawItem[] {
    const out: RawItem[] = [];
    let elementStart = this.#state === State.InElement ? 0 : -1;
    for (let i = 0; i < chunk.length; i++) {
      const ch = chunk.charCodeAt(i);
      if (ch === 10) {
        this.#line++;
        this.#column = 0;
      } else {
        this.#column++;
      }
      if (this.#state === State.InElement) {
        if (this.#inString) {
          if (this.#escaped) this.#escaped = false;
          else if (ch === 92)
            this.#escaped = true; // backslash
          else if (ch === 34) this.#inString = false; // quote
          continue;
        }
        if (ch === 34) this.#inString = true;
        else if (ch === 123 || ch === 91) this.#depth++;
        else if (ch === 125 || ch === 93) {
          this.#depth--;
          if (this.#depth === 0) {
            this.#keep(chunk, elementStart, i + 1);
            out.push(this.#parseElement());
            if (this.#failed) return out;
            elementStart = -1;
            this.#state = State.AfterElement;
          }
        }
        continue;
      }
      if (ch === 32 || ch === 10 || ch === 13 || ch === 9) continue;
      switch (this.#state) {
        case State.BeforeArray:
          if (ch === 91) this.#state = State.BeforeElement;
          else return this.#fail(out, 'expected an array of objects ("[") or one object per line');
          break;
        case State.BeforeElement:
        case State.AfterComma:
          if (ch === 123) {
            this.#state = State.InElement;
            this.#depth = 1;
            this.#elementLine = this.#line;
            elementStart = i;
          } else if (ch === 93 && this.#state === State.BeforeElement) {
            this.#state = State.AfterArray;
          } else {
            return this.#fail(out, 'expected an object');
          }
          break;
        case State.AfterElement:
          if (ch === 44) this.#state = State.AfterComma;
          else if (ch === 93) this.#state = State.AfterArray;
          else return this.#fail(out, 'expected "," or "]" after an element');
          break;
        case State.AfterArray:
          return this.#fail(out, 'unexpected content after the array');
      }
    }
    if (this.#state === State.InElement && elementStart >= 0) this.#keep(chunk, elementStart, chunk.length);
    return out;
  }

  /** Collects an element's text while it is within the bound; past it only its size is counted. */
  #keep(chunk: string, start: number, end: number): void {
    this.#size += end - start;
    if (this.#size > MAX_RECORD_CHARS) this.#parts = [];
    else this.#parts.push(chunk.slice(start, end));
  }

  end(): RawItem[] {
    if (this.#failed || this.#state === State.AfterArray) return [];
    const what = this.#state === State.BeforeArray ? 'the file holds no JSON' : 'the array is not closed';
    return this.#fail([], `unexpected end of file: ${what}`);
  }

  #parseElement(): RawItem {
    const text = this.#parts.join('');
    const size = this.#size;
    this.#parts = [];
    this.#size = 0;
    if (size > MAX_RECORD_CHARS) {
      return {
        error: `the element starting at line ${this.#elementLine} is larger than ${MAX_RECORD_CHARS} characters (${size}): skipped`,
        line: this.#elementLine,
        fatal: false,
      };
    }
    try {
      return { fields: JSON.parse(text) as Record<string, unknown>, line: this.#elementLine };
    } catch (error) {
      this.#failed = true;
      return {
        error: `malformed JSON in the element starting at line ${this.#elementLine}: ${printable((error as Error).message, 200)}`,
        line: this.#elementLine,
        fatal: true,
      };
    }
  }

  #fail(out: RawItem[], message: string): RawItem[] {
    this.#failed = true;
    out.push({
      error: `malformed JSON at line ${this.#line}, column ${this.#column}: ${message}`,
      line: this.#line,
      column: this.#column,
      fatal: true,
    });
    return out;
  }
}
