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
  const { temp, closed } = await writeTempBeside(path, content);
  await closed.catch(async (error: unknown) => {
    await removeTemp(temp);
    throw error;
  });
  await new Promise<void>((resolve, reject) =>
    rename(temp, path, (error) => (error ? unlink(temp, () => reject(error)) : resolve())),
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
 */
export async function writeNewFile(
  path: string,
  content: string,
  options: AtomicWriteOptions & { unlessExists?: string } = {},
): Promise<NewFileOutcome> {
  const lookup = options.unlessExists ? statIfExists(options.unlessExists) : Promise.resolve(null);
  // Both settle before anything else happens: a failed lookup must not leave the temporary file.
  const [written, found] = await Promise.allSettled([writeTempBeside(path, content, options), lookup]);
  if (written.status === 'rejected') throw written.reason;
  const { temp, closed } = written.value;
  if (found.status === 'rejected' || found.value !== null) {
    await closed.catch(() => undefined);
    await removeTemp(temp);
    if (found.status === 'rejected') throw found.reason;
    return 'stood-back';
  }
  // The content is on disk already: the name is given while the descriptor closes.
  const [closing, linking] = await Promise.allSettled([
    closed,
    new Promise<void>((resolve, reject) => link(temp, path, (error) => (error ? reject(error) : resolve()))),
  ]);
  await removeTemp(temp);
  // A close that failed after the link: the file is there whole; the caller's retry finds it.
  if (closing.status === 'rejected') throw closing.reason;
  if (linking.status === 'fulfilled') return 'written';
  if ((linking.reason as NodeJS.ErrnoException).code === 'EEXIST') return 'existed';
  throw linking.reason;
}

/** Removes the temporary file (its removal failing is left to the stale-file cleanup). */
function removeTemp(temp: string): Promise<void> {
  return new Promise<void>((resolve) => unlink(temp, () => resolve()));
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

/**
 * The complete content in a temporary file next to `path` (same folder: rename/link stay atomic),
 * on disk. One promise for the whole open, write, fsync and close, through the callback API: an
 * outbox of many files spends far less of the event loop's time than with a FileHandle's promises.
 * Resolves once the content is on disk; `closed` settles when the descriptor is closed (a caller may
 * name the file meanwhile: one trip fewer) and must be awaited.
 */
function writeTempBeside(
  path: string,
  content: string,
  options: AtomicWriteOptions = {},
): Promise<{ temp: string; closed: Promise<void> }> {
  const dir = dirname(path);
  const temp = join(
    dir,
    `${TEMP_PREFIX}${basename(path)}-${process.pid}-${(tempToken ??= randomBytes(4).toString('hex'))}${(tempCount++).toString(36)}`,
  );
  const data = Buffer.from(content, 'utf8');
  return new Promise<{ temp: string; closed: Promise<void> }>((resolve, reject) => {
    const fail = (fd: number, error: Error): void => close(fd, () => unlink(temp, () => reject(error)));
    const writeFrom = (fd: number, offset: number): void =>
      write(fd, data, offset, data.length - offset, null, (error, written) => {
        if (error) return fail(fd, error);
        if (offset + written < data.length) return writeFrom(fd, offset + written);
        const done = (): void => {
          const closed = new Promise<void>((closedOk, closeFailed) =>
            close(fd, (closeError) => (closeError ? closeFailed(closeError) : closedOk())),
          );
          // Handled from the start: it may fail before the caller gets to await it.
          closed.catch(() => undefined);
          resolve({ temp, closed });
        };
        if (SYNC_OPEN !== null) return done();
        fsync(fd, (syncError) => (syncError ? fail(fd, syncError) : done()));
      });
    openCreating(temp, options, (error, fd) => (error ? reject(error) : writeFrom(fd!, 0)));
  });
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
 * outbox write looks up a name that is not there once per order (7-9 µs of the JS thread against
 * 15-17 µs, bench/RESULTS.md, "the JS thread's work per order").
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
