import { monotonicMs } from '../domain/monotonicMs.js';

/**
 * Measures event-loop lag with a timer: how late each tick fires compared with when it was due.
 * A loop blocked by CPU-heavy work (or a stuck synchronous call) shows up as a large lag long
 * before the process stops answering, which is what `/healthz` reports.
 */
export class LoopLagMonitor {
  readonly #intervalMs: number;
  readonly #windowMs: number;
  #timer: NodeJS.Timeout | undefined;
  #expected = 0;
  /** Lag samples of the window: [time, lagMs]. */
  #samples: [number, number][] = [];

  constructor(options: { intervalMs?: number; windowMs?: number } = {}) {
    this.#intervalMs = options.intervalMs ?? 500;
    this.#windowMs = options.windowMs ?? 10_000;
  }

  start(): void {
    if (this.#timer) return;
    this.#expected = monotonicMs() + this.#intervalMs;
    this.#timer = setInterval(() => this.#tick(), this.#intervalMs);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /**
   * The largest lag of the window, in milliseconds, including the lag building up right now: a
   * tick that is overdue counts even before it fires (when the loop is blocked it never does).
   */
  maxLagMs(now = monotonicMs()): number {
    this.#samples = this.#samples.filter(([at]) => now - at <= this.#windowMs);
    const overdue = this.#timer ? Math.max(0, now - this.#expected) : 0;
    return Math.max(overdue, ...this.#samples.map(([, lag]) => lag));
  }

  #tick(): void {
    const now = monotonicMs();
    this.#samples.push([now, Math.max(0, now - this.#expected)]);
    this.#expected = now + this.#intervalMs;
  }
}
