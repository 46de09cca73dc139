import { close, createReadStream, fstat, open, read, type ReadStream, type Stats } from 'node:fs';
import { once } from 'node:events';
import { pipeline } from 'node:stream';
import { promisify } from 'node:util';
import { iconvLite } from './iconvLite.js';
import { detectDelimiter, csvRows } from './readers/csvRows.js';
import { jsonRows } from './readers/jsonRows.js';
import { ndjsonRows } from './readers/ndjsonRows.js';
import { isRawError, type OpenStream, type RawBatches, type RawItem } from './readers/RawItem.js';
import { isUtf8Name } from './encodings.js';
import { TextGuard } from './readers/TextGuard.js';
import { xmlRows } from './readers/xmlRows.js';
import { asAccessError, isMissing } from './asAccessError.js';
import type { InputFile } from './locateInput.js';

const openAsync = promisify(open);
const fstatAsync = promisify(fstat);
const readAsync = promisify(read);
const closeAsync = promisify(close);

const KEEP_OPEN = { open, read, close: (_fd: number, callback: (error: null) => void) => callback(null) };

export interface ReadOptions {
  delimiter: 'auto' | ',' | ';';
  /** iconv-lite name of the files' encoding; `utf-8` when not given. */
  encoding?: string;
}

/**
 * Raw items of one input file, read through one file descriptor: a file renamed over the path
 * while we read does not mix into what we read. JSON arrays and XML are checked in a first pass
 * so that a malformed file yields one fatal item and no rows at all.
 */
export async function* readInput(
  input: InputFile,
  options: ReadOptions,
  onOpen: (stats: Stats) => void,
): RawBatches {
  let fd: number;
  try {
    fd = await openAsync(input.path, 'r');
  } catch (error) {
    if (isMissing(error)) return; // moved away since it was found: nothing to read this time
    throw asAccessError(error, input.path);
  }
  const streams: ReadStream[] = [];
  try {
    onOpen(await fstatAsync(fd));
    // Destroying a read stream closes its descriptor even with autoClose off; JSON and XML read the
    // same descriptor twice, so the streams get a close that leaves it open (we close it below).
    // Every stream goes through a TextGuard (encoding, invalid bytes, line bounds); the guard of
    // the latest stream opened holds what it refused, merged into the rows by `withGuardIssues`.
    let guard: TextGuard | undefined;
    const encoding = options.encoding ?? 'utf-8';
    const openStream: OpenStream = (mode = 'lines') => {
      const stream = createReadStream('', { fd, start: 0, autoClose: false, fs: KEEP_OPEN });
      streams.push(stream);
      guard = new TextGuard({ encoding, mode });
      return pipeline(stream, guard, () => undefined);
    };
    const guarded = (batches: RawBatches) => withGuardIssues(batches, () => guard);
    try {
      switch (input.format) {
        case 'csv': {
          const delimiter =
            options.delimiter === 'auto' ? detectDelimiter(await headText(fd, encoding)) : options.delimiter;
          yield* guarded(csvRows(openStream, { delimiter }));
          break;
        }
        case 'ndjson':
          yield* guarded(ndjsonRows(openStream));
          break;
        case 'json':
          yield* validatedFirst(() => guarded(jsonRows(openStream)));
          break;
        case 'xml':
          yield* validatedFirst(() => guarded(xmlRows(openStream)));
          break;
      }
    } catch (error) {
      throw asAccessError(error, input.path);
    }
  } finally {
    // A read still in flight on a closed (and maybe reused) descriptor would read another file.
    await Promise.all(streams.map(settle));
    await closeAsync(fd);
  }
}

async function* validatedFirst(read: () => RawBatches): RawBatches {
  for await (const batch of read()) {
    const fatal = batch.find((item) => isRawError(item) && item.fatal);
    if (fatal) {
      yield [fatal];
      return;
    }
  }
  yield* read();
}

/**
 * Puts what the guard refused (lines not decodable, too long) among the rows, in line order. A
 * fatal guard error (a JSON or XML document that is not valid text) replaces whatever the reader
 * made of the cut-off document.
 */
async function* withGuardIssues(batches: RawBatches, current: () => TextGuard | undefined): RawBatches {
  let taken = 0;
  let guard: TextGuard | undefined;
  for await (const batch of batches) {
    if (guard !== current()) {
      guard = current();
      taken = 0;
    }
    const issues = guard?.issues ?? [];
    const fatal = guard?.fatal;
    if (!fatal && taken === issues.length) {
      yield batch;
      continue;
    }
    const out: RawItem[] = [];
    for (const item of batch) {
      if (fatal && (isRawError(item) || item.line >= fatal.line)) {
        out.push(fatal);
        yield out;
        return;
      }
      while (taken < issues.length && issues[taken]!.line < item.line) out.push(issues[taken++]!);
      out.push(item);
    }
    if (out.length) yield out;
  }
  guard = current();
  if (guard?.fatal) yield [guard.fatal];
  else if (guard && taken < guard.issues.length) yield guard.issues.slice(taken);
}

/** The first 64 KiB as text, enough for the header line. */
async function headText(fd: number, encoding: string): Promise<string> {
  const buffer = Buffer.alloc(64 * 1024);
  const { bytesRead } = await readAsync(fd, buffer, 0, buffer.length, 0);
  const head = buffer.subarray(0, bytesRead);
  const text = isUtf8Name(encoding) ? head.toString('utf8') : iconvLite().decode(head, encoding);
  return text.replace(/^\uFEFF/, '');
}

async function settle(stream: ReadStream): Promise<void> {
  if (stream.closed) return;
  const closed = once(stream, 'close').catch(() => undefined);
  stream.destroy();
  await closed;
}
