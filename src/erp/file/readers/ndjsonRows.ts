import { printable } from '../../../domain/printable.js';
import { BOM, isRawError, type OpenStream, type RawBatches, type RawItem } from './RawItem.js';

/**
 * One JSON object per line; a line that is not one is a reject of that line only. A file that is
 * one object wrapping the rows (`{"items": [...]}`, on one line or pretty-printed) is refused as a
 * whole, with one fatal item: its rows are not "one object per line".
 */
export async function* ndjsonRows(open: OpenStream): RawBatches {
  const stream = open('lines');
  stream.setEncoding('utf8');
  let line = 0;
  let rest = '';
  const state = { first: true };
  try {
    for await (const chunk of stream as AsyncIterable<string>) {
      const lines = (rest + chunk).split('\n');
      rest = lines.pop()!;
      const out: RawItem[] = [];
      for (const text of lines) parseLine(text, ++line, out, state);
      if (out.length) yield out;
      if (endsFatal(out)) return;
    }
    const out: RawItem[] = [];
    if (rest !== '') parseLine(rest, ++line, out, state);
    if (out.length) yield out;
  } finally {
    stream.destroy();
  }
}

const WRAPPER_HINT =
  'the rows must be a JSON array ([{...}, {...}]) or one object per line, not wrapped in an object';

/** The opening line of a pretty-printed object: `{`, `{"items": [` and the like. */
const OBJECT_OPENING = /^\{\s*("(?:[^"\\]|\\.)*"\s*:\s*[[{]?\s*)?$/;

function parseLine(raw: string, line: number, out: RawItem[], state: { first: boolean }): void {
  if (endsFatal(out)) return;
  const text = line === 1 && raw.startsWith(BOM) ? raw.slice(1) : raw;
  if (text.trim() === '') return;
  const first = state.first;
  state.first = false;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    if (first && OBJECT_OPENING.test(text.trim())) {
      out.push({
        error: `the file is one JSON object spanning several lines: ${WRAPPER_HINT}`,
        line,
        fatal: true,
      });
      return;
    }
    out.push({ error: `malformed JSON: ${printable((error as Error).message, 200)}`, line, fatal: false });
    return;
  }
  if (first && isWrapper(value)) {
    const key = Object.keys(value as object)[0]!;
    out.push({
      error: `the file is one JSON object holding the rows in ${printable(JSON.stringify(key))}: ${WRAPPER_HINT}`,
      line,
      fatal: true,
    });
    return;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    out.push({ error: 'malformed JSON: the line is not an object', line, fatal: false });
    return;
  }
  out.push({ fields: value as Record<string, unknown>, line });
}

/** An object with one key whose value is an array of objects: a wrapper, not a row. */
function isWrapper(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const values = Object.values(value);
  return (
    values.length === 1 &&
    Array.isArray(values[0]) &&
    values[0].some((v) => typeof v === 'object' && v !== null)
  );
}

function endsFatal(out: RawItem[]): boolean {
  const last = out.at(-1);
  return last !== undefined && isRawError(last) && last.fatal;
}
