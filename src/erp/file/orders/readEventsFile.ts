import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { parse } from 'csv-parse';
import type { OrderEvent } from '../../../domain/orders.js';
import type { Checkpointed } from '../../ErpAdapter.js';
import { fileExists } from './atomicFile.js';
import { toOrderEvent, type RawEventRow } from './orderEventRows.js';

/**
 * Checkpoint of the events file: `<file name>:<records consumed>:<signature of the first record>`.
 * A file that was replaced (other first record) or truncated (fewer records) is read again from
 * the start; the pipeline's applied-events table makes the re-read harmless.
 */
interface EventsCheckpoint {
  file: string;
  count: number;
  signature: string;
}

export function parseEventsCheckpoint(text: string | null): EventsCheckpoint | null {
  if (!text) return null;
  const match = /^(.+):(\d+):([0-9a-f]*)$/.exec(text);
  return match ? { file: match[1]!, count: Number(match[2]), signature: match[3]! } : null;
}

function formatCheckpoint(checkpoint: EventsCheckpoint): string {
  return `${checkpoint.file}:${checkpoint.count}:${checkpoint.signature}`;
}

export async function* readEventsFile(
  files: { csv: string; json: string },
  checkpointText: string | null,
  decimalComma: boolean,
): AsyncIterable<Checkpointed<OrderEvent>> {
  const path = (await fileExists(files.csv)) ? files.csv : (await fileExists(files.json)) ? files.json : null;
  if (!path) return;
  const name = basename(path);
  const records = path === files.csv ? csvRecords(path) : jsonRecords(path);
  const previous = parseEventsCheckpoint(checkpointText);
  let index = 0;
  let signature = '';
  let skip = 0;
  for await (const { raw, line } of records) {
    if (index === 0) {
      signature = createHash('sha1').update(JSON.stringify(raw)).digest('hex').slice(0, 12);
      const sameFile = previous && previous.file === name && previous.signature === signature;
      skip = sameFile ? previous.count : 0;
    }
    index += 1;
    if (index <= skip) continue;
    const row = toOrderEvent(raw, { file: name, line }, decimalComma);
    yield { row, checkpoint: formatCheckpoint({ file: name, count: index, signature }) };
  }
}

async function* csvRecords(path: string): AsyncIterable<{ raw: RawEventRow; line: number }> {
  const head = await readHead(path);
  const firstLine = head.replace(/^\uFEFF/, '').split(/\r?\n/, 1)[0] ?? '';
  const delimiter = count(firstLine, ';') > count(firstLine, ',') ? ';' : ',';
  const parser = createReadStream(path).pipe(
    parse({
      bom: true,
      columns: (header: string[]) => header.map((h) => h.trim().toLowerCase()),
      delimiter,
      skip_empty_lines: true,
      relax_column_count: true,
      trim: true,
      info: true,
    }),
  );
  for await (const item of parser as AsyncIterable<{ record: RawEventRow; info: { lines: number } }>) {
    yield { raw: item.record, line: item.info.lines };
  }
}

async function* jsonRecords(path: string): AsyncIterable<{ raw: RawEventRow; line: number }> {
  // Event files are small (a day of fulfilment facts); array or NDJSON.
  const text = (await readFile(path, 'utf8')).replace(/^\uFEFF/, '').trim();
  if (text === '') return;
  if (text.startsWith('[')) {
    const list = JSON.parse(text) as unknown[];
    for (const [i, raw] of list.entries()) yield { raw: asRecord(raw), line: i + 1 };
    return;
  }
  for (const [i, lineText] of text.split(/\r?\n/).entries()) {
    if (lineText.trim() === '') continue;
    let raw: unknown;
    try {
      raw = JSON.parse(lineText);
    } catch {
      raw = { __invalid: lineText };
    }
    yield { raw: asRecord(raw), line: i + 1 };
  }
}

function asRecord(value: unknown): RawEventRow {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as RawEventRow) : {};
}

async function readHead(path: string): Promise<string> {
  const stream = createReadStream(path, { start: 0, end: 4095, encoding: 'utf8' });
  let text = '';
  for await (const chunk of stream) text += chunk as string;
  return text;
}

function count(text: string, char: string): number {
  return text.split(char).length - 1;
}
