/**
 * Requests in flight per route ("METHOD /path", no query), from arrival to the last byte of the
 * answer (or the connection closing), with the highest number seen since the last reset. Kept in
 * the process, not derived from the request log, whose millisecond arrival times cannot order a
 * request ending and the next one starting in the same millisecond.
 */
export class InFlightMeter {
  private readonly current = new Map<string, number>();
  private readonly peaks = new Map<string, number>();

  /** A request arrived; the returned function ends it (calling it again does nothing). */
  enter(route: string): () => void {
    const now = (this.current.get(route) ?? 0) + 1;
    this.current.set(route, now);
    if (now > (this.peaks.get(route) ?? 0)) this.peaks.set(route, now);
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.current.set(route, (this.current.get(route) ?? 1) - 1);
    };
  }

  now(route: string): number {
    return this.current.get(route) ?? 0;
  }

  /** The most requests of that route in flight at once since the start or the last reset. */
  peak(route: string): number {
    return this.peaks.get(route) ?? 0;
  }

  /** Starts a new peak from what is in flight now. */
  resetPeak(route: string): void {
    this.peaks.set(route, this.now(route));
  }
}
