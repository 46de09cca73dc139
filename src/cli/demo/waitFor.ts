import { setTimeout as sleep } from 'node:timers/promises';
import { ErpSyncError } from '../../domain/errors.js';

/** A demo step that did not happen in time. */
export class DemoStepTimeoutError extends ErpSyncError {
  constructor(what: string, ms: number) {
    super(
      'internal',
      `the demo waited ${Math.round(ms / 1000)} s for ${what}; the log above (stderr) says why`,
      { what },
    );
  }
}

/**
 * Polls `check` until it holds (true) or `signal` aborts (false: Ctrl-C, the demo stops);
 * throws after timeoutMs.
 */
export async function waitFor(
  what: string,
  check: () => boolean | Promise<boolean>,
  signal: AbortSignal,
  timeoutMs: number,
  everyMs = 250,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!signal.aborted) {
    if (await check()) return true;
    if (Date.now() > deadline) throw new DemoStepTimeoutError(what, timeoutMs);
    await sleep(everyMs, undefined, { signal }).catch(() => undefined);
  }
  return false;
}
