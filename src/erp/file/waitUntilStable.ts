import { stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { FileNotReadyError } from './FileNotReadyError.js';

export interface StableOptions {
  /** Size and modification time unchanged this long means the writer is done. */
  stableMs: number;
  /** Give up after this long and report the file as not ready. */
  timeoutMs: number;
}

/**
 * Waits until a file is complete. A file last modified at least `stableMs` ago is ready at once
 * (this covers files written elsewhere and renamed into place); otherwise its size and mtime are
 * polled until they stay unchanged for `stableMs`. Throws FileNotReadyError (retryable) when the
 * file keeps changing past `timeoutMs`.
 */
export async function waitUntilStable(path: string, options: StableOptions): Promise<Stats> {
  const started = Date.now();
  let last = await stat(path);
  if (started - last.mtimeMs >= options.stableMs) return last;
  let unchangedSince = Date.now();
  const interval = Math.max(10, Math.min(250, Math.floor(options.stableMs / 4)));
  for (;;) {
    if (Date.now() - started > options.timeoutMs) {
      throw new FileNotReadyError(
        `${path} is still being written (size or time changed within the last ${options.stableMs} ms for ${options.timeoutMs} ms)`,
        { path },
      );
    }
    await sleep(interval);
    const now = await stat(path);
    if (now.size !== last.size || now.mtimeMs !== last.mtimeMs || now.ino !== last.ino) {
      last = now;
      unchangedSince = Date.now();
    } else if (
      Date.now() - unchangedSince >= options.stableMs ||
      Date.now() - now.mtimeMs >= options.stableMs
    ) {
      return now;
    }
  }
}
