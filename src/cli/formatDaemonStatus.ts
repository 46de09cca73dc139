import type { DaemonStatus } from '../diagnostics/StatusReport.js';

/** The daemon's part of `erp-sync status` as text. */
export function formatDaemonStatus(status: DaemonStatus): string {
  const lines: string[] = ['', `daemon (Redis ${status.redis}):`];
  if (!status.reachable) {
    lines.push(`  Redis not reachable: ${status.error ?? 'unknown reason'}`);
  } else {
    lines.push(`  running daemons: ${status.daemons}`);
    lines.push(
      status.paused ? `  PAUSED since ${status.paused.since}: ${status.paused.reason}` : '  not paused',
    );
    for (const [name, queue] of Object.entries(status.queues)) {
      const counts = Object.entries(queue.counts)
        .map(([state, n]) => `${state} ${n}`)
        .join(', ');
      lines.push(`  queue ${name.padEnd(8)}${queue.paused ? ' (paused)' : ''}: ${counts}`);
    }
  }
  lines.push('  schedules:');
  for (const [pipeline, p] of Object.entries(status.pipelines)) {
    const lag = p.lagSeconds === null ? 'never succeeded' : `lag ${p.lagSeconds} s`;
    const next = p.schedule === 'off' ? 'off' : `"${p.schedule}", next ${p.nextRun ?? '?'}`;
    lines.push(`    ${pipeline.padEnd(11)} ${next}; last run ${p.lastRun ?? 'never'}, ${lag}`);
  }
  return `${lines.join('\n')}\n`;
}
