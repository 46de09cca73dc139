/** Resolves when `signal` aborts (Ctrl-C), or after `seconds` if given. */
export function untilAborted(signal: AbortSignal, seconds?: number): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = seconds === undefined ? undefined : setTimeout(done, seconds * 1000);
    signal.addEventListener('abort', done, { once: true });
  });
}
