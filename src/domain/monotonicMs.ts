/**
 * Milliseconds on a monotonic clock, for durations and deadlines (only differences mean
 * anything): what performance.now() gives, without the `performance` global, whose first use
 * loads node:perf_hooks and the ten modules behind it (histograms, observers, timing entries) in
 * every process that measures a duration, `erp-sync check` included (bench/RESULTS.md, "CLI start").
 */
export function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}
