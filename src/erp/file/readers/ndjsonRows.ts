import { BOM, type OpenStream, type RawBatches, type RawItem } from './RawItem.js';

/** One JSON object per line; a line that is not one is a reject of that line only. */
export async function* ndjsonRows(open: OpenStream): RawBatches {
  const stream = open();
  stream.setEncoding('utf8');
  let line = 0;
  let rest = '';
  try {
    for await (const chunk of stream as AsyncIterable<string>) {
      const lines = (rest + chunk).split('\n');
      rest = lines.pop()!;
      const out: RawItem[] = [];
      for (const text of lines) parseLine(text, ++line, out);
      if (out.length) yield out;
    }
    const out: RawItem[] = [];
    if (rest !== '') parseLine(rest, ++line, out);
    if (out.length) yield out;
  } finally {
    stream.destroy();
  }
}

function parseLine(raw: string, line: number, out: RawItem[]): void {
  const text = line === 1 && raw.startsWith(BOM) ? raw.slice(1) : raw;
  if (text.trim() === '') return;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    out.push({ error: `malformed JSON: ${(error as Error).message}`, line, fatal: false });
    return;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    out.push({ error: 'malformed JSON: the line is not an object', line, fatal: false });
    return;
  }
  out.push({ fields: value as Record<string, unknown>, line });
}
