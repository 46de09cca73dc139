import type { RunFailure } from './types.js';

/** Item failures in a row, with no success between, after which a side counts as down. */
export const FAILURES_IN_A_ROW = 3;

/**
 * Whether an item's failure is one the next item would meet too: the ERP or the platform not
 * answering (retryable, after the client's own retries) or erp-sync's ERP user lacking a right.
 * A refusal of the item itself (a parked order, a 422) is not.
 */
export function isSideFailure(failure: RunFailure): boolean {
  return failure.kind === 'retryable' || failure.code === 'erp_permission';
}

/**
 * Counts side failures in a row (see isSideFailure); any success, or a failure of the item itself,
 * ends the streak. One failure alone is taken for the item's (one order may upset the ERP); a few
 * in a row mean the ERP (or the platform) is down, and going on would only ask it again per item.
 */
export class FailureStreak {
  #count = 0;
  #last: RunFailure | undefined;

  constructor(private readonly limit: number = FAILURES_IN_A_ROW) {}

  /** Records one item's failure; true once the streak has reached the limit. */
  failed(failure: RunFailure): boolean {
    if (!isSideFailure(failure)) {
      this.#count = 0;
      return false;
    }
    this.#count += 1;
    this.#last = failure;
    return this.down;
  }

  succeeded(): void {
    this.#count = 0;
  }

  /** True while the last `limit` items failed on the side. */
  get down(): boolean {
    return this.#count >= this.limit;
  }

  /** The latest side failure of the streak. */
  get last(): RunFailure | undefined {
    return this.#count > 0 ? this.#last : undefined;
  }
}
