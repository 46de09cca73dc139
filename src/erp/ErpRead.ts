import type { ErpRow } from '../domain/records.js';

/**
 * What `commit` needs to finish one read (which file, and its identity when it was read). A
 * string (JSON inside, or anything the adapter likes), so that it can travel: from the job that
 * read to the one that ends the run, or into the store.
 */
export type ReadReceipt = string & { readonly __brand: 'ReadReceipt' };

/** A receipt from its text (as an adapter wrote it, or as it came back from a job's data). */
export function asReadReceipt(text: string): ReadReceipt {
  return text as ReadReceipt;
}

/** One read of a record stream: its rows, then (once read to the end) its receipt. */
export interface ErpRead<T> extends AsyncIterable<ErpRow<T>> {
  /** Null until a read gave one, and for a read with nothing to commit. Reset when iterated again. */
  readonly receipt: ReadReceipt | null;
  /**
   * The same rows in the groups the source hands them on (a chunk of a file, a page, a cursor
   * fetch): one async step per group instead of per row, which is a third of a fast reader's time.
   */
  groups(): AsyncIterable<ErpRow<T>[]>;
}

type StartRead<X> = (setReceipt: (receipt: ReadReceipt) => void) => AsyncIterable<X>;

/**
 * An ErpRead over a generator of rows. `start` gets a setter for the receipt of the read it
 * starts; the generator is returned as is (no extra async layer per row: that costs a second per
 * 1M rows). Its groups are of one row.
 */
export function erpRead<T>(start: StartRead<ErpRow<T>>): ErpRead<T> {
  return readOf(start, (rows) => rows, oneByOne);
}

/** An ErpRead over a generator of groups of rows (see `groups`); row by row it is flattened. */
export function erpReadGroups<T>(start: StartRead<ErpRow<T>[]>): ErpRead<T> {
  return readOf(start, flattened, (groups) => groups);
}

function readOf<X, T>(
  start: StartRead<X>,
  rows: (source: AsyncIterable<X>) => AsyncIterable<ErpRow<T>>,
  groups: (source: AsyncIterable<X>) => AsyncIterable<ErpRow<T>[]>,
): ErpRead<T> {
  let receipt: ReadReceipt | null = null;
  const begin = () => {
    receipt = null;
    return start((value) => (receipt = value));
  };
  return {
    get receipt() {
      return receipt;
    },
    [Symbol.asyncIterator]: () => rows(begin())[Symbol.asyncIterator](),
    groups: () => groups(begin()),
  };
}

async function* oneByOne<T>(rows: AsyncIterable<T>): AsyncIterable<T[]> {
  for await (const row of rows) yield [row];
}

async function* flattened<T>(groups: AsyncIterable<T[]>): AsyncIterable<T> {
  for await (const group of groups) yield* group;
}
