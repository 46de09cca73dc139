import { close, createReadStream, fstat, open, read, type ReadStream, type Stats } from 'node:fs';
import { once } from 'node:events';
import { promisify } from 'node:util';
import { detectDelimiter, csvRows } from './readers/csvRows.js';
import { jsonRows } from './readers/jsonRows.js';
import { ndjsonRows } from './readers/ndjsonRows.js';
import { isRawError, type OpenStream, type RawBatches } from './readers/RawItem.js';
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
    const openStream: OpenStream = () => {
      const stream = createReadStream('', { fd, start: 0, autoClose: false, fs: KEEP_OPEN });
      streams.push(stream);
      return stream;
    };
    try {
      switch (input.format) {
        case 'csv': {
          const delimiter =
            options.delimiter === 'auto' ? detectDelimiter(await headText(fd)) : options.delimiter;
          yield* csvRows(openStream, { delimiter });
          break;
        }
        case 'ndjson':
          yield* ndjsonRows(openStream);
          break;
        case 'json':
          yield* validatedFirst(() => jsonRows(openStream));
          break;
        case 'xml':
          yield* validatedFirst(() => xmlRows(openStream));
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

/** The first 64 KiB as text, enough for the header line. */
async function headText(fd: number): Promise<string> {
  const buffer = Buffer.alloc(64 * 1024);
  const { bytesRead } = await readAsync(fd, buffer, 0, buffer.length, 0);
  return buffer
    .subarray(0, bytesRead)
    .toString('utf8')
    .replace(/^\uFEFF/, '');
}

async function settle(stream: ReadStream): Promise<void> {
  if (stream.closed) return;
  const closed = once(stream, 'close').catch(() => undefined);
  stream.destroy();
  await closed;
}
