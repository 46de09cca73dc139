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
}

/**
 * An ErpRead over a generator. `start` gets a setter for the receipt of the read it starts; the
 * generator is returned as is (no extra async layer per row: that costs a second per 1M rows).
 */
export function erpRead<T>(
  start: (setReceipt: (receipt: ReadReceipt) => void) => AsyncIterable<ErpRow<T>>,
): ErpRead<T> {
  let receipt: ReadReceipt | null = null;
  return {
    get receipt() {
      return receipt;
    },
    [Symbol.asyncIterator]() {
      receipt = null;
      return start((value) => (receipt = value))[Symbol.asyncIterator]();
    },
  };
}
