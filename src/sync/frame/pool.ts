/**
 * Runs at most `limit` tasks at once. submit() waits while the pool is full, which is the
 * back-pressure that keeps a million-row scan from queueing a million requests in memory.
 * The first task that throws stops the pool: later submit() and drain() rethrow its error.
 */
export interface Pool {
  submit(task: () => Promise<void>): Promise<void>;
  drain(): Promise<void>;
  readonly active: number;
}

/**
 * Runs `work`, which submits tasks to `pool`, then waits for all of them. When either throws, the
 * tasks still in flight finish (and record what the platform answered) before the error goes on
 * and the caller releases its lease.
 */
export async function drainAfter<T>(pool: Pool, work: () => Promise<T>): Promise<T> {
  try {
    const result = await work();
    await pool.drain();
    return result;
  } catch (error) {
    await pool.drain().catch(() => undefined);
    throw error;
  }
}

export function createPool(limit: number): Pool {
  if (!Number.isInteger(limit) || limit < 1)
    throw new RangeError(`pool limit must be a positive integer, got ${limit}`);
  const running = new Set<Promise<void>>();
  let failed = false;
  let failure: unknown;

  const check = (): void => {
    if (failed) throw failure;
  };

  return {
    get active() {
      return running.size;
    },
    async submit(task) {
      check();
      while (running.size >= limit) {
        await Promise.race(running);
        check();
      }
      const settled: Promise<void> = task()
        .catch((error: unknown) => {
          if (!failed) {
            failed = true;
            failure = error;
          }
        })
        .finally(() => running.delete(settled));
      running.add(settled);
    },
    async drain() {
      while (running.size > 0) await Promise.race(running);
      check();
    },
  };
}
