import { randomBytes } from 'node:crypto';
import type { Stats } from 'node:fs';
import { close, constants, fsync, link, mkdir, open, rename, stat as statFile, unlink, write } from 'node:fs';
import { readdir, stat, unlink as unlinkFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** Prefix of our temporary files: readers of the outbox skip names starting with a dot. */
const TEMP_PREFIX = '.tmp-';

/**
 * A temporary file is opened with O_SYNC: a write returns once its data and what finds them (the
 * file's size, its blocks) are on disk, what the fsync after it gave, in one trip through libuv's
 * thread pool and the event loop instead of two (each trip waits while the event loop is busy: at
 * 10k orders the daemon's imports spent more time between trips than in them). Where the platform
 * has no O_SYNC, an fsync follows the write.
 */
const SYNC_OPEN: number | null = constants.O_SYNC
  ? constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_SYNC
  : null;

/**
 * Writes a file so that a reader sees either nothing or the whole content: a temporary file in
 * the same folder, flushed to disk, then renamed over the target (rename is atomic on POSIX).
 */
export async function writeFileAtomic(path: string, content: string): Promise<void> {
  const temp = tempPathBeside(path);
  const whenClosed = await new Promise<WhenClosed>((resolve, reject) =>
    writeTemp(temp, Buffer.from(content, 'utf8'), {}, (error, closed) => (error ? reject(error) : resolve(closed!))),
  );
  await new Promise<void>((resolve, reject) =>
    whenClosed((closeError) =>
      closeError
        ? unlink(temp, () => reject(closeError))
        : rename(temp, path, (error) => (error ? unlink(temp, () => reject(error)) : resolve())),
    ),
  );
}

/**
 * Like writeFileAtomic, but never replaces an existing file: the complete temporary file is
 * hard-linked to the target, which fails if the target exists. Returns false when it existed.
 * Two processes writing the same new file: exactly one wins.
 */
export async function writeNewFileAtomic(
  path: string,
  content: string,
  options: AtomicWriteOptions = {},
): Promise<boolean> {
  return (await writeNewFile(path, content, options)) === 'written';
}

/** What writeNewFile did: wrote the file, found it there, or found `unlessExists` there (and wrote nothing). */
export type NewFileOutcome = 'written' | 'existed' | 'stood-back';

/**
 * writeNewFileAtomic that also writes nothing when `unlessExists` exists (another name that stands for
 * the same file, e.g. another format's). That path is looked up while the temporary file is written,
 * before the link: one trip through the thread pool and the event loop fewer per file than a lookup
 * before the write, and the same order (looked up, then linked) for a writer racing us.
 *
 * One promise over fs callbacks for the whole file (an outbox writes one per order: promises and
 * closures per step cost the event loop more than the calls themselves, bench/RESULTS.md). The
 * temporary file's write and the lookup both settle before anything else happens (a failed lookup
 * must not leave the temporary file); the content on disk, the name is given while the descriptor
 * closes; the temporary name goes once both are done.
 */
export function writeNewFile(
  path: string,
  content: string,
  options: AtomicWriteOptions & { unlessExists?: string } = {},
): Promise<NewFileOutcome> {
  return new Promise<NewFileOutcome>((resolve, reject) => {
    const temp = tempPathBeside(path);
    /** undefined until the temporary file is written (or failed and removed). */
    let written: { error: Error | null; whenClosed?: WhenClosed } | undefined;
    /** undefined until looked up: whether `unlessExists` is there, or why the lookup failed. */
    let found: boolean | Error | undefined = options.unlessExists ? undefined : false;
    const decide = (): void => {
      if (written === undefined || found === undefined) return;
      if (written.error) return reject(written.error);
      const whenClosed = written.whenClosed!;
      if (found !== false) {
        const lookup = found;
        return whenClosed(() => unlink(temp, () => (lookup === true ? resolve('stood-back') : reject(lookup))));
      }
      let closeError: Error | null | undefined;
      let linkError: NodeJS.ErrnoException | null | undefined;
      const named = (): void => {
        if (closeError === undefined || linkError === undefined) return;
        // Its removal failing is left to the stale-file cleanup.
        unlink(temp, () => {
          // A close that failed after the link: the file is there whole; the caller's retry finds it.
          if (closeError) reject(closeError);
          else if (!linkError) resolve('written');
          else if (linkError.code === 'EEXIST') resolve('existed');
          else reject(linkError);
        });
      };
      link(temp, path, (error) => {
        linkError = error;
        named();
      });
      whenClosed((error) => {
        closeError = error;
        named();
      });
    };
    if (options.unlessExists)
      statFile(options.unlessExists, (error) => {
        found = !error ? true : error.code === 'ENOENT' ? false : error;
        decide();
      });
    writeTemp(temp, Buffer.from(content, 'utf8'), options, (error, whenClosed) => {
      written = { error, whenClosed };
      decide();
    });
  });
}

export interface AtomicWriteOptions {
  /** Called when the file's folder is missing, before it is made: throws to refuse making it. */
  beforeMakingFolder?: () => Promise<void>;
}

/**
 * Per process: with a counter, the temporary files' names without a random draw per file. Drawn at
 * the first write, not when the module loads: `erp-sync check` loads it and writes nothing, and
 * node:crypto costs it about 3 ms at start (bench/RESULTS.md, "What the commands load at start").
 */
let tempToken: string | undefined;
let tempCount = 0;

/** A new temporary name next to `path` (same folder: rename/link stay atomic). */
function tempPathBeside(path: string): string {
  return join(
    dirname(path),
    `${TEMP_PREFIX}${basename(path)}-${process.pid}-${(tempToken ??= randomBytes(4).toString('hex'))}${(tempCount++).toString(36)}`,
  );
}

/** Gives the outcome of the descriptor's close (null: closed), now or once it is known. */
type WhenClosed = (done: (closeError: Error | null) => void) => void;

/**
 * The complete content in the new file `temp`, on disk: open, write (and fsync without O_SYNC),
 * through the callback API. `written` is called once the content is on disk, the descriptor then
 * closing (a caller may name the file meanwhile: one trip fewer; `whenClosed` gives the close's
 * outcome), or with the error once the temporary file is removed.
 */
function writeTemp(
  temp: string,
  data: Buffer,
  options: AtomicWriteOptions,
  written: (error: Error | null, whenClosed?: WhenClosed) => void,
): void {
  const fail = (fd: number, error: Error): void => close(fd, () => unlink(temp, () => written(error)));
  const closing = (fd: number): void => {
    let outcome: Error | null | undefined;
    let waiting: ((closeError: Error | null) => void) | undefined;
    close(fd, (error) => {
      outcome = error;
      waiting?.(outcome);
    });
    written(null, (done) => (outcome === undefined ? (waiting = done) : done(outcome)));
  };
  const writeFrom = (fd: number, offset: number): void =>
    write(fd, data, offset, data.length - offset, null, (error, count) => {
      if (error) return fail(fd, error);
      if (offset + count < data.length) return writeFrom(fd, offset + count);
      if (SYNC_OPEN !== null) return closing(fd);
      fsync(fd, (syncError) => (syncError ? fail(fd, syncError) : closing(fd)));
    });
  openCreating(temp, options, (error, fd) => (error ? written(error) : writeFrom(fd!, 0)));
}

/** Opens a new file for writing, making its folder first only when it is missing (not once per file). */
function openCreating(
  path: string,
  options: AtomicWriteOptions,
  done: (error: Error | null, fd?: number) => void,
): void {
  const flags = SYNC_OPEN ?? 'w';
  open(path, flags, (error, fd) => {
    if (error?.code !== 'ENOENT') return done(error, fd);
    const check = options.beforeMakingFolder?.() ?? Promise.resolve();
    check.then(
      () =>
        mkdir(dirname(path), { recursive: true }, (mkdirError) =>
          mkdirError ? done(mkdirError) : open(path, flags, done),
        ),
      (refused: Error) => done(refused),
    );
  });
}

export async function fileExists(path: string): Promise<boolean> {
  return (await statIfExists(path)) !== null;
}

/**
 * The file's stats, or null when it does not exist; any other failure (permissions) throws. Through
 * the callback API: the promise API's rejection captures a stack trace for every ENOENT, and an
 * outbox write looks up a name that is not there once per order (about 0.17 s of the event loop per
 * 10k orders, bench/RESULTS.md).
 */
export function statIfExists(path: string): Promise<Stats | null> {
  return new Promise((resolve, reject) =>
    statFile(path, (error, stats) => {
      if (!error) resolve(stats);
      else if (error.code === 'ENOENT') resolve(null);
      else reject(error);
    }),
  );
}

/** Removes temporary files a killed process left behind (older than `olderThanMs`). */
export async function removeStaleTempFiles(dir: string, olderThanMs = 60_000): Promise<number> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return 0;
  }
  let removed = 0;
  const limit = Date.now() - olderThanMs;
  for (const name of names) {
    if (!name.startsWith(TEMP_PREFIX)) continue;
    const path = join(dir, name);
    const info = await stat(path).catch(() => undefined);
    if (info && info.mtimeMs < limit) {
      await unlinkFile(path).catch(() => undefined);
      removed += 1;
    }
  }
  return removed;
}

export function isTempFileName(name: string): boolean {
  return name.startsWith('.');
}
