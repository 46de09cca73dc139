import { randomBytes } from 'node:crypto';
import type { Stats } from 'node:fs';
import { link, mkdir, open, readdir, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** Prefix of our temporary files: readers of the outbox skip names starting with a dot. */
const TEMP_PREFIX = '.tmp-';

/**
 * Writes a file so that a reader sees either nothing or the whole content: a temporary file in
 * the same folder, flushed to disk, then renamed over the target (rename is atomic on POSIX).
 */
export async function writeFileAtomic(path: string, content: string): Promise<void> {
  const temp = await writeTempBeside(path, content);
  try {
    await rename(temp, path);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
}

/**
 * Like writeFileAtomic, but never replaces an existing file: the complete temporary file is
 * hard-linked to the target, which fails if the target exists. Returns false when it existed.
 * Two processes writing the same new file: exactly one wins.
 */
export async function writeNewFileAtomic(path: string, content: string): Promise<boolean> {
  const temp = await writeTempBeside(path, content);
  try {
    await link(temp, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await unlink(temp).catch(() => undefined);
  }
}

/** The complete content in a temporary file next to `path` (same folder: rename/link stay atomic), on disk. */
async function writeTempBeside(path: string, content: string): Promise<string> {
  const dir = dirname(path);
  const temp = join(dir, `${TEMP_PREFIX}${basename(path)}-${process.pid}-${randomBytes(4).toString('hex')}`);
  const handle = await openCreating(temp);
  try {
    await handle.writeFile(content, 'utf8');
    await handle.sync();
  } catch (error) {
    await handle.close().catch(() => undefined);
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  await handle.close();
  return temp;
}

/** Opens a new file for writing, making its folder first only when it is missing (not once per file). */
async function openCreating(path: string): Promise<FileHandle> {
  try {
    return await open(path, 'w');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    await mkdir(dirname(path), { recursive: true });
    return open(path, 'w');
  }
}

export async function fileExists(path: string): Promise<boolean> {
  return (await statIfExists(path)) !== null;
}

/** The file's stats, or null when it does not exist; any other failure (permissions) throws. */
export async function statIfExists(path: string): Promise<Stats | null> {
  try {
    return await stat(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
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
      await unlink(path).catch(() => undefined);
      removed += 1;
    }
  }
  return removed;
}

export function isTempFileName(name: string): boolean {
  return name.startsWith('.');
}
