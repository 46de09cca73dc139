import { mkdir, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { FileAccessError } from './FileAccessError.js';

/** Moves `path` to DIR/archive/<UTC timestamp>-<name>; returns the new path. */
export async function archiveFile(
  dir: string,
  path: string,
  name: string,
  now = new Date(),
): Promise<string> {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('.', '');
  const target = join(dir, 'archive', `${stamp}-${name}`);
  try {
    await mkdir(join(dir, 'archive'), { recursive: true });
    await rename(path, target);
  } catch (error) {
    throw new FileAccessError(
      `cannot archive ${path} to ${target}: ${(error as Error).message}`,
      { path },
      {
        cause: error,
      },
    );
  }
  return target;
}
