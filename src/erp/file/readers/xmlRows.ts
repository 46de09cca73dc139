import { SaxesParser } from 'saxes';
import { printable } from '../../../domain/printable.js';
import {
  BOM,
  isRawError,
  MAX_RECORD_CHARS,
  type OpenStream,
  type RawBatches,
  type RawItem,
  type RawRow,
} from './RawItem.js';

/**
 * Streams an XML file shaped as a root element holding one element per row, whose fields are
 * child elements or attributes (names are free, mapped like CSV headers):
 *
 *   <stock>
 *     <item><sku>A-1</sku><quantity>5</quantity></item>
 *     <item sku="A-2" variant_sku="A-2-XL" quantity="3"/>
 *   </stock>
 *
 * Child elements win over attributes of the same name; deeper elements add their text to the field.
 * A well-formedness error is fatal: the whole file is one reject naming line and column. A row whose
 * fields add up to more than MAX_RECORD_CHARS is not held: it is a reject of its own.
 */
export async function* xmlRows(open: OpenStream): RawBatches {
  const parser = new SaxesParser({ position: true });
  const ready: RawItem[] = [];
  let depth = 0;
  let row: RawRow | undefined;
  let field: string | undefined;
  let text = '';
  let size = 0;

  parser.on('opentag', (tag) => {
    depth++;
    if (depth === 2) {
      row = { fields: { ...(tag.attributes as Record<string, string>) }, line: parser.line };
      size = Object.values(row.fields).reduce<number>((sum, value) => sum + String(value).length, 0);
    } else if (depth === 3) {
      field = tag.name;
      text = '';
    }
  });
  const onText = (value: string) => {
    if (depth < 3) return;
    size += value.length;
    if (size <= MAX_RECORD_CHARS) text += value;
  };
  parser.on('text', onText);
  parser.on('cdata', onText);
  parser.on('closetag', () => {
    if (depth === 3 && row && field !== undefined) {
      row.fields[field] = text.trim();
      field = undefined;
    } else if (depth === 2 && row) {
      ready.push(
        size > MAX_RECORD_CHARS
          ? {
              error: `the row starting at line ${row.line} is larger than ${MAX_RECORD_CHARS} characters (${size}): skipped`,
              line: row.line,
              fatal: false,
            }
          : row,
      );
      row = undefined;
    }
    depth--;
  });

  const stream = open('document');
  stream.setEncoding('utf8');
  let first = true;
  // Only what the parser throws means a malformed document; a read error propagates as it is.
  const feed = (chunk: string | null): RawItem[] => {
    try {
      if (chunk === null) parser.close();
      else parser.write(chunk);
      return ready.splice(0);
    } catch (error) {
      const failed = ready.splice(0);
      failed.push({
        error: `malformed XML at line ${parser.line}, column ${parser.column + 1}: ${printable(stripPosition((error as Error).message), 200)}`,
        line: parser.line,
        column: parser.column + 1,
        fatal: true,
      });
      return failed;
    }
  };
  try {
    for await (let chunk of stream as AsyncIterable<string>) {
      if (first && chunk.startsWith(BOM)) chunk = chunk.slice(1);
      first = false;
      const items = feed(chunk);
      if (items.length) yield items;
      if (items.some((item) => isRawError(item) && item.fatal)) return;
    }
    const items = feed(null);
    if (items.length) yield items;
  } finally {
    stream.destroy();
  }
}

/** saxes prefixes its messages with "line:column: "; we say it in words instead. */
function stripPosition(message: string): string {
  return message.replace(/^\d+:\d+:\s*/, '');
}
