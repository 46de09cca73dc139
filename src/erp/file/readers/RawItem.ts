import type { Readable } from 'node:stream';

/** One row of an input file before mapping: raw keys and values, and the line it starts on. */
export interface RawRow {
  fields: Record<string, unknown>;
  line: number;
}

/**
 * A row or a file that could not be read. `fatal`: the file as a whole is malformed (nothing
 * after it can be trusted); otherwise only that row is lost.
 */
export interface RawError {
  error: string;
  line: number;
  column?: number;
  fatal: boolean;
}

/**
 * A row by position (a CSV line): its cells in the order of `columns`, the file's header, which
 * every row of the file shares, so the columns are mapped once per file and no object is built
 * per row. A cell past the end of a short row is empty.
 */
export interface RawCells {
  cells: readonly string[];
  columns: readonly string[];
  line: number;
}

export type RawItem = RawRow | RawCells | RawError;

/** Readers yield rows in batches: one async step per chunk read, not per row (3x faster on 1M rows). */
export type RawBatches = AsyncIterable<RawItem[]>;

export function isRawError(item: RawItem): item is RawError {
  return 'error' in item;
}

/**
 * Opens a fresh stream over the whole file as UTF-8 bytes (readers that validate first read it
 * twice). `lines` for line-based formats (a bad line is that line's reject), `document` for JSON
 * arrays and XML (a bad byte is fatal for the file); see TextGuard.
 */
export type OpenStream = (mode?: 'lines' | 'document') => Readable;

export const BOM = '\uFEFF';

/**
 * The largest row a reader holds (a JSON element, an XML row's fields, about a CSV or NDJSON
 * line): a row past it is a reject of its own, never held whole (a 50 MB cell must not cost 1 GB).
 */
export const MAX_RECORD_CHARS = 1024 * 1024;
