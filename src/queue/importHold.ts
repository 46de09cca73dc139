import type { Logger } from 'pino';
import { FAILURES_IN_A_ROW, FailureStreak, isSideFailure } from '../sync/frame/failureStreak.js';
import { describeFailure } from '../sync/frame/classifyFailure.js';
import type { RunFailure } from '../sync/frame/types.js';

export interface ImportHoldOptions {
  /** How long the imports wait after each failure while held: one import tries again after it. */
  holdMs: number;
  logger: Logger;
  /** Told when the hold starts (true) and ends (false): a metric. */
  onChange?: (held: boolean) => void;
  now?: () => number;
}

/**
 * The daemon's order imports, one job per order, as run-once's import sees them in a row: once
 * FAILURES_IN_A_ROW imports failed on the ERP's side (not answering, or refusing erp-sync's user a
 * right; or the platform not answering), the others would only ask the same dead ERP again, one
 * request per order and attempt. So the imports queue waits `holdMs`, then ONE import tries; a
 * success ends the hold, a failure starts the next wait. While held, readiness says why.
 */
export class ImportHold {
  readonly #streak = new FailureStreak();
  readonly #now: () => number;
  #since: number | null = null;
  #until = 0;

  constructor(private readonly options: ImportHoldOptions) {
    this.#now = options.now ?? Date.now;
  }

  /** An import failed with this failure (one of the order itself counts as an answer). */
  failed(failure: RunFailure): void {
    if (!isSideFailure(failure)) return this.succeeded();
    if (!this.#streak.failed(failure)) return;
    const now = this.#now();
    this.#until = now + this.options.holdMs;
    if (this.#since !== null) return;
    this.#since = now;
    this.options.logger.error(
      { reason: describeFailure(failure), failuresInARow: FAILURES_IN_A_ROW },
      `order imports wait: ${FAILURES_IN_A_ROW} imports in a row failed (${describeFailure(failure)}); ` +
        `one import tries again every ${Math.round(this.options.holdMs / 1000)} s`,
    );
    this.options.onChange?.(true);
  }

  /** An import went through: the ERP answered. */
  succeeded(): void {
    this.#streak.succeeded();
    if (this.#since === null) return;
    this.#since = null;
    this.#until = 0;
    this.options.logger.info('order imports go through again: the hold is over');
    this.options.onChange?.(false);
  }

  /** How long an import must still wait before it may try (0: go). */
  waitMs(): number {
    return this.#since === null ? 0 : Math.max(0, this.#until - this.#now());
  }

  /** Why imports are held, for readiness; null when they are not. */
  reason(): string | null {
    const last = this.#streak.last;
    if (this.#since === null || !last) return null;
    return `order imports held since ${new Date(this.#since).toISOString()}: ${FAILURES_IN_A_ROW} in a row failed: ${describeFailure(last)}`;
  }
}
