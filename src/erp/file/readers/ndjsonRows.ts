import { createInterface } from 'node:readline';
import { BOM, type OpenStream, type RawItem } from './RawItem.js';

/** One JSON object per line; a line that is not one is a reject of that line only. */
export async function* ndjsonRows(open: OpenStream, firstLine = 1): AsyncIterable<RawItem> {
  const lines = createInterface({ input: open(), crlfDelay: Infinity });
  let line = firstLine - 1;
  for await (let text of lines) {
    line++;
    if (line === 1 && text.startsWith(BOM)) text = text.slice(1);
    if (text.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      yield { error: `malformed JSON: ${(error as Error).message}`, line, fatal: false };
      continue;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      yield { error: 'malformed JSON: the line is not an object', line, fatal: false };
      continue;
    }
    yield { fields: value as Record<string, unknown>, line };
  }
}
