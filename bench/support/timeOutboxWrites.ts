import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { link, open, unlink } from 'node:fs/promises';
import { join } from 'node:path';

/** The same write as writeNewFileAtomic (temp file, link, unlink) without syncing it to disk. */
export async function writeNewFileNoSync(path: string, content: string): Promise<void> {
  const temp = `${path}.tmp-${randomBytes(4).toString('hex')}`;
  const handle = await open(temp, 'w');
  await handle.writeFile(content, 'utf8');
  await handle.close();
  await link(temp, path);
  await unlink(temp);
}

/**
 * Seconds to write `count` files of `content` into `dir`, `concurrency` at a time, as the orders
 * pipeline writes its outbox: what an import cannot go below.
 */
export async function timeOutboxWrites(
  dir: string,
  count: number,
  content: string,
  write: (path: string, content: string) => Promise<unknown>,
  concurrency: number,
): Promise<number> {
  mkdirSync(dir, { recursive: true });
  const started = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < count) await write(join(dir, `${next++}.json`), content);
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return (performance.now() - started) / 1000;
}
