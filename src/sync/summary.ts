import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import { describeError, isErpSyncError } from '../domain/errors.js';
import type { RequestCounter, RunOptions, RunSummary, SyncContext } from './types.js';

export function emptySummary(pipeline: string, options: RunOptions): RunSummary {
  return {
    pipeline,
    read: 0,
    unchanged: 0,
    sent: 0,
    applied: 0,
    notFound: 0,
    rejected: 0,
    failed: 0,
    requests: 0,
    writeRequests: 0,
    seconds: 0,
    full: options.full,
    dryRun: options.dryRun,
    extra: {},
  };
}

/**
 * Puts a run's error on its summary and logs it: ERROR only when a person must act, WARN for a
 * transient failure that the next run heals. Our own errors carry a clear message; anything else
 * is a bug, logged with its stack.
 */
export function failRun(log: Logger, summary: RunSummary, error: unknown, fatal: boolean): void {
  summary.error = describeError(error);
  summary.fatal = fatal;
  const heals = !fatal && isErpSyncError(error) && error.retryable;
  log[heals ? 'warn' : 'error'](
    { err: isErpSyncError(error) ? summary.error : error },
    fatal ? 'run stopped' : heals ? 'run interrupted, redone next run' : 'run failed',
  );
}

/** The end of every run: request counts and time on the summary, the run row, the last progress event. */
export function finishRun(
  ctx: SyncContext,
  summary: RunSummary,
  run: { started: number; requestsBefore: RequestCounter; runId: number | undefined },
): void {
  summary.requests = ctx.requests.total - run.requestsBefore.total;
  summary.writeRequests = ctx.requests.writes - run.requestsBefore.writes;
  summary.seconds = (performance.now() - run.started) / 1000;
  if (run.runId !== undefined) {
    const { preview: _preview, ...counts } = summary;
    ctx.store.runs.finish(
      run.runId,
      summary.error === undefined ? { counts } : { counts, error: summary.error },
    );
  }
  const { pipeline, read, sent, applied } = summary;
  ctx.onProgress?.({ pipeline, read, sent, applied, done: true });
}

const COLUMNS: { title: string; value: (s: RunSummary) => string }[] = [
  { title: 'pipeline', value: (s) => s.pipeline + (s.dryRun ? ' (dry run)' : '') },
  { title: 'read', value: (s) => String(s.read) },
  { title: 'unchanged', value: (s) => String(s.unchanged) },
  { title: 'sent', value: (s) => String(s.sent) },
  { title: 'applied', value: (s) => String(s.applied) },
  { title: 'not found', value: (s) => String(s.notFound) },
  { title: 'rejected', value: (s) => String(s.rejected) },
  { title: 'requests', value: (s) => String(s.requests) },
  { title: 'seconds', value: (s) => s.seconds.toFixed(2) },
];

/** A plain-text table, one row per pipeline; numbers right-aligned. */
export function formatSummaryTable(summaries: RunSummary[]): string {
  const rows = summaries.map((s) => COLUMNS.map((c) => c.value(s)));
  const widths = COLUMNS.map((c, i) => Math.max(c.title.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]): string =>
    cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  const out = [
    line(COLUMNS.map((c) => c.title)),
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...rows.map(line),
  ];
  for (const s of summaries) {
    if (s.failed > 0)
      out.push(`${s.pipeline}: ${s.failed} item(s) not confirmed, they are sent again next run`);
    if (s.error) out.push(`${s.pipeline}: ${s.fatal ? 'STOPPED: ' : ''}${s.error}`);
  }
  return out.join('\n');
}
