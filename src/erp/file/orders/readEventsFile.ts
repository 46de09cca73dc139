import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { parse } from 'csv-parse';
import type { OrderEvent } from '../../../domain/orders.js';
import type { ErpRow } from '../../../domain/records.js';
import type { Checkpointed } from '../../ErpAdapter.js';
import { fileExists } from './atomicFile.js';
import { toOrderEvent, type RawEventRow } from '../../mapping/toOrderEvent.js';

/** Marks an NDJSON line that is not valid JSON (a key no file can carry). */
const INVALID_JSON = '\u0000invalid_json';

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
  for await (const { raw, line, broken } of records) {
    if (broken !== undefined) {
      // The file cannot be read past this point (broken quoting, invalid JSON): a reject naming
      // the line, and the checkpoint stays before it, so nothing after it is lost; the rows
      // before it went through. Once the ERP repairs the file it is read on from there.
      const key = `${name}:${line}`;
      const at = index > 0 ? formatCheckpoint({ file: name, count: index, signature }) : checkpointText;
      yield {
        row: { ok: false, key, reason: broken, source: { file: name, line } },
        checkpoint: at ?? `${name}:0:`,
      };
      return;
    }
    if (index === 0) {
      signature = createHash('sha1').update(JSON.stringify(raw)).digest('hex').slice(0, 12);
      const sameFile = previous && previous.file === name && previous.signature === signature;
      skip = sameFile ? previous.count : 0;
    }
    index += 1;
    if (index <= skip) continue;
    const source = { file: name, line };
    const row: ErpRow<OrderEvent> = raw[INVALID_JSON]
      ? { ok: false, key: `${name}:${line}`, reason: 'not valid JSON', source }
      : toOrderEvent(raw, source, decimalComma);
    yield { row, checkpoint: formatCheckpoint({ file: name, count: index, signature }) };
  }
}

/** One record of the file; `broken` when the file cannot be read past this line. */
interface RawRecord {
  raw: RawEventRow;
  line: number;
  broken?: string;
}

async function* csvRecords(path: string): AsyncIterable<RawRecord> {
  const head = await readHead(path);
  const firstLine = head.replace(/^\uFEFF/, '').split(/\r?\n/, 1)[0] ?? '';
  const delimiter = count(firstLine, ';') > count(firstLine, ',') ? ';' : ',';
  // Records are taken as each one is parsed (an error in the same chunk would drop the ones the
  // stream had buffered, and the rows before a broken line must still go through), through a small
  // queue that pauses the file while the pipeline works: a large file is never held in memory.
  const queue: RawRecord[] = [];
  let lastLine = 1;
  let done = false;
  let failure: unknown = null;
  let wake: (() => void) | null = null;
  const notify = () => {
    const resume = wake;
    wake = null;
    resume?.();
  };
  const file = createReadStream(path);
  const parser = parse({
    bom: true,
    columns: (header: string[]) => header.map((h) => h.trim().toLowerCase()),
    delimiter,
    skip_empty_lines: true,
    relax_column_count: true,
    trim: true,
    on_record: (record: RawEventRow, context: { lines: number }) => {
      lastLine = context.lines;
      queue.push({ raw: record, line: context.lines });
      if (queue.length >= QUEUE_HIGH) file.pause();
      notify();
      return null;
    },
  });
  parser.on('error', (error: Error & { lines?: number }) => {
    queue.push({ raw: {}, line: error.lines ?? lastLine + 1, broken: `not valid CSV: ${error.message}` });
    done = true;
    notify();
  });
  parser.on('end', () => {
    done = true;
    notify();
  });
  parser.resume();
  // A file that cannot be read is an ERP not available now (retried), not a bad row.
  file.on('error', (error) => {
    failure = error;
    done = true;
    notify();
  });
  file.pipe(parser);
  try {
    for (;;) {
      const next = queue.shift();
      if (next) {
        if (queue.length < QUEUE_HIGH / 2) file.resume();
        yield next;
        if (next.broken !== undefined) return;
        continue;
      }
      if (failure) throw failure as Error;
      if (done) return;
      await new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    file.destroy();
  }
}

const QUEUE_HIGH = 512;

async function* jsonRecords(path: string): AsyncIterable<RawRecord> {
  // Event files are small (a day of fulfilment facts); array or NDJSON.
  const text = (await readFile(path, 'utf8')).replace(/^\uFEFF/, '').trim();
  if (text === '') return;
  if (text.startsWith('[')) {
    let list: unknown;
    try {
      list = JSON.parse(text);
    } catch (error) {
      yield { raw: {}, line: 1, broken: `not valid JSON: ${(error as Error).message}` };
      return;
    }
    if (!Array.isArray(list)) {
      yield { raw: {}, line: 1, broken: 'not a JSON array of events' };
      return;
    }
    for (const [i, raw] of list.entries()) yield { raw: asRecord(raw), line: i + 1 };
    return;
  }
  // NDJSON: a broken line is one bad record (the lines are independent), the others go on.
  for (const [i, lineText] of text.split(/\r?\n/).entries()) {
    if (lineText.trim() === '') continue;
    let raw: unknown;
    try {
      raw = JSON.parse(lineText);
    } catch {
      raw = { [INVALID_JSON]: true };
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
