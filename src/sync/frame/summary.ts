import type { PipelineName } from '../../domain/pipelineNames.js';
import { describeFailure } from './classifyFailure.js';
import type { RunFailure, RunOptions, RunSummary } from './types.js';

/**
 * When some items of a run were not confirmed (`first`: the first failure), makes that the run's
 * error, saying how many `items` (e.g. "product(s)") it concerns. Returns whether it did.
 */
export function failUnconfirmed(summary: RunSummary, first: RunFailure | undefined, items: string): boolean {
  if (!first) return false;
  summary.error = { ...first, message: `${summary.failed} ${items} not confirmed: ${first.message}` };
  return true;
}

export function emptySummary(
  pipeline: PipelineName,
  options: Pick<RunOptions, 'full' | 'dryRun'>,
): RunSummary {
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
    // A run's error says how many items it left (invariant 14); the count alone only without one.
    if (s.error)
      out.push(`${s.pipeline}: ${s.error.kind === 'fatal' ? 'STOPPED: ' : ''}${describeFailure(s.error)}`);
    else if (s.failed > 0)
      out.push(`${s.pipeline}: ${s.failed} item(s) not confirmed, they are sent again next run`);
  }
  return out.join('\n');
}
