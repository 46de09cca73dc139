import type { Readable } from 'node:stream';

const HIGH_WATER = 1_000;

/**
 * Like iterating a stream with for-await (in batches of what arrived meanwhile), except that everything the stream emitted before an
 * error is delivered before the error is thrown (the built-in iterator drops buffered items).
 * Backpressure: the stream is paused while HIGH_WATER items wait.
 */
export async function* drainStream<T>(stream: Readable): AsyncIterable<T[]> {
  const queue: T[] = [];
  let failure: { error: unknown } | undefined;
  let ended = false;
  let wake: (() => void) | undefined;
  const notify = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  stream.on('data', (item: T) => {
    queue.push(item);
    if (queue.length >= HIGH_WATER) stream.pause();
    notify();
  });
  stream.on('error', (error) => {
    failure = { error };
    notify();
  });
  stream.on('end', () => {
    ended = true;
    notify();
  });
  try {
    for (;;) {
      if (queue.length) {
        const batch = queue.splice(0);
        if (!failure && !ended) stream.resume();
        yield batch;
        continue;
      }
      if (failure) throw failure.error;
      if (ended) return;
      await new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    stream.destroy();
  }
}
