import { opendir } from 'node:fs/promises';
import { monotonicMs } from '../../../domain/monotonicMs.js';

/** How long a listing answers for "not there" before the folders are read again. */
export const LISTING_MAX_AGE_MS = 1000;

/**
 * Above this many names the folders are not listed: an ERP that never empties done/ or archive/
 * would make every poll read (and hold) its whole archive, where a few stats per order cost less.
 */
export const LISTING_MAX_NAMES = 20_000;

/** How long folders found too large are left unlisted before they are tried again. */
export const LISTING_RETRY_MS = 10 * 60_000;

/**
 * Entries read from a folder per call: a call is one trip through libuv's thread pool, where it queues
 * behind the imports' fsyncs, so 10k names in 3 trips rather than 40 (the dirents buffered are small).
 */
const READ_BUFFER = 4096;

/**
 * The names in the orders outbox and the folders the ERP moves its files to, read again once they are
 * older than `maxAgeMs` (a poll's imports share one read) instead of a stat per place and order. The
 * next read starts in the background once the names are half that old, so the imports do not wait
 * for it: they go on with names that are still within `maxAgeMs` (each read of a 10k-name outbox
 * made every import wait 10-500 ms once a second, bench/RESULTS.md). They wait only for a first
 * read, or when a read took longer than half of `maxAgeMs`.
 *
 * It only says where an earlier import may be: a name it holds is checked again on disk by the
 * caller (the ERP may have moved or removed it since), and a name it does not hold was not in any
 * of the folders when they were read. The folders are read one after the other in the order a file
 * moves (the outbox before the folders the ERP moves files into), so a file moved during the read is
 * seen in one or the other. The files this process writes are added as it writes them. A file
 * another process writes after the read is not in it until the next read: the outbox looks for
 * those where they land (see OrderOutbox). One such file the ERP also moved out of the outbox
 * before the next read would be missed: two processes importing one order within the same second
 * are excluded before the outbox (the import job's id, the store's link of the order).
 */
export class OutboxListing {
  /** null: not read yet, or the folders held more than `maxNames` (every name may be there). */
  #names: Set<string> | null = null;
  #readAt = 0;
  #tooLarge = false;
  #reading: Promise<Set<string> | null> | null = null;
  /** Written while a read was under way: that read may have missed them. */
  readonly #writtenDuringRead = new Set<string>();

  constructor(
    /** The outbox first, then the folders the ERP moves its files to. */
    private readonly dirs: readonly string[],
    private readonly maxAgeMs = LISTING_MAX_AGE_MS,
    private readonly now: () => number = monotonicMs,
    private readonly maxNames = LISTING_MAX_NAMES,
  ) {}

  /**
   * Whether any of `names` was in one of the folders (or was written by this process since);
   * always true while the folders are too large to list (the caller then looks on disk).
   */
  async mayHold(names: readonly string[]): Promise<boolean> {
    const known = await this.#current();
    return known === null || names.some((name) => known.has(name));
  }

  /** A file this process wrote (or found) in the outbox. */
  add(name: string): void {
    this.#names?.add(name);
    if (this.#reading) this.#writtenDuringRead.add(name);
  }

  async #current(): Promise<Set<string> | null> {
    const age = this.now() - this.#readAt;
    if (this.#tooLarge && age < LISTING_RETRY_MS) return null;
    if (this.#names && age < this.maxAgeMs) {
      // A failure of this read reaches whoever waits for it later (or the read after it).
      if (age >= this.maxAgeMs / 2) this.#startRead().catch(() => undefined);
      return this.#names;
    }
    return this.#startRead();
  }

  /** The read under way, or a new one: every import asking meanwhile shares it. */
  #startRead(): Promise<Set<string> | null> {
    this.#reading ??= this.#read().finally(() => {
      this.#reading = null;
    });
    return this.#reading;
  }

  async #read(): Promise<Set<string> | null> {
    const startedAt = this.now();
    const names = new Set<string>();
    let complete = true;
    for (const dir of this.dirs) {
      complete = await addNamesIn(dir, names, this.maxNames);
      if (!complete) break;
    }
    for (const name of this.#writtenDuringRead) names.add(name);
    this.#writtenDuringRead.clear();
    this.#tooLarge = !complete;
    this.#names = complete ? names : null;
    // Aged from the start of the read: what was written during it may be missing.
    this.#readAt = startedAt;
    return this.#names;
  }
}

/**
 * Adds the entry names of a folder (none when it does not exist yet); false, having stopped early,
 * when the names would pass `maxNames`.
 */
async function addNamesIn(dir: string, names: Set<string>, maxNames: number): Promise<boolean> {
  let folder;
  try {
    folder = await opendir(dir, { bufferSize: READ_BUFFER });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return true;
    throw error;
  }
  // Leaving the loop early closes the folder.
  for await (const entry of folder) {
    if (names.size >= maxNames) return false;
    names.add(entry.name);
  }
  return true;
}
