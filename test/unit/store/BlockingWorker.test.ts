import { afterEach, describe, expect, it } from 'vitest';
import { BlockingWorker } from '../../../src/store/sql/BlockingWorker.js';

const LATE_WAKE_WORKER = new URL('../../support/lateWakeWorker.ts', import.meta.url);

describe('BlockingWorker', () => {
  let worker: BlockingWorker<string, { answered: string }> | undefined;
  afterEach(() => {
    worker?.stop();
    worker = undefined;
  });

  it('gives each call its own answer when a late notify of the previous answer wakes it first', () => {
    worker = new BlockingWorker(LATE_WAKE_WORKER, {});
    expect(worker.call('first', 10_000)).toEqual({ answered: 'first' });
    // Woken once without an answer while it waits: it waits on for this call's own.
    expect(worker.call('second', 10_000)).toEqual({ answered: 'second' });
    // No answer left behind for a later call to take.
    expect(worker.call('third', 10_000)).toEqual({ answered: 'third' });
  });
});
