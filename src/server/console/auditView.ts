import type { AuditFinding, AuditReport } from '../../diagnostics/audit.js';
import { html, type SafeHtml } from './html.js';
import {
  actionForm,
  badge,
  cell,
  duration,
  orderPath,
  problem,
  shown,
  skuPath,
  time,
  type ViewContext,
} from './viewParts.js';

/** The console's audit: at most one at a time, its last report kept in memory. */
export interface AuditState {
  running: boolean;
  startedAt: string | null;
  finishedAt: string | null;
  report: AuditReport | null;
  /** The audit itself threw (not a report's own `error`). */
  error: unknown;
}

function findingItem(finding: AuditFinding): SafeHtml {
  const order = finding.kind === 'order_not_in_erp' || finding.kind === 'order_gone';
  const href = order ? orderPath(Number(finding.key)) : skuPath(finding.key.split('/')[0]!);
  return html`<a href="${href}">${order ? `#${finding.key}` : finding.key}</a>`;
}

function findingsTable(report: AuditReport): SafeHtml {
  if (report.findings.length === 0) return html``;
  return html`<div class="panel">
      <table class="stack">
        <thead>
          <tr>
            <th>kind</th>
            <th>item</th>
            <th>platform</th>
            <th>ERP / would push</th>
            <th>heals</th>
            <th>why</th>
          </tr>
        </thead>
        <tbody>
          ${report.findings.map(
            (f) =>
              html`<tr>
                ${cell('kind', f.kind.replace(/_/g, ' '))} ${cell('item', findingItem(f), 'mono nowrap')}
                ${cell('platform', shown(f.platform), 'mono')}
                ${cell('ERP / would push', shown(f.expected), 'mono')}
                ${cell('heals', f.heals ? badge('heals', 'pending') : badge('blocked'))}
                ${cell('why', f.why, 'wrap')}
              </tr>`,
          )}
        </tbody>
      </table>
    </div>
    ${report.truncated ? html`<p class="muted">… and ${report.drift - report.findings.length} more (the console lists the first ${report.findings.length}; \`erp-sync audit --json\` lists all)</p>` : ''}`;
}

function reportPart(report: AuditReport, finishedAt: string | null): SafeHtml {
  const erp = Object.entries(report.read.erpRows).map(([p, n]) => `ERP ${p} ${n} rows`);
  const read = [
    report.read.platformItems ? `platform ${report.read.platformItems} items` : '',
    ...erp,
    report.pipelines.includes('orders')
      ? `${report.read.platformOrders} platform orders, ${report.read.orderLinks} order links`
      : '',
  ].filter(Boolean);
  const counts = Object.entries(report.counts)
    .filter(([, n]) => n > 0)
    .map(([kind, n]) => `${kind.replace(/_/g, ' ')} ${n}`)
    .join(', ');
  const verdict =
    report.drift === 0
      ? report.complete
        ? html`<div class="note ok verdict in_step">In step: no drift found.</div>`
        : html`<div class="note warn">No drift found in what was read.</div>`
      : html`<div class="note verdict blocked">Drift: ${report.drift} (${counts})</div>`;
  return html`${report.complete ? '' : problem('The audit could not finish', report.error ?? 'unknown error')}
    ${verdict}
    <p class="muted small">
      Audit of ${report.pipelines.join(', ')}, finished ${time(finishedAt)}: read ${read.join(', ')} in
      ${duration(report.seconds)}. Nothing was written.
    </p>
    ${findingsTable(report)}`;
}

/** The live part of /audit: the button, the running audit or the last report. */
export function auditFragment(view: ViewContext, state: AuditState): SafeHtml {
  const button = state.running
    ? null
    : actionForm(view, '/actions/audit', {}, state.report ? 'Audit again' : 'Run an audit', {
        primary: true,
        title: 'erp-sync audit (read only, without --fix)',
      });
  const running = state.running
    ? html`<div class="note">
        ${badge('running')} An audit started ${time(state.startedAt, { relative: true })}: it reads the whole
        platform catalog and the ERP, then this page shows its report.
      </div>`
    : null;
  const last = state.error
    ? problem('The audit failed', state.error)
    : state.report
      ? reportPart(state.report, state.finishedAt)
      : state.running
        ? null
        : html`<p class="muted">
            No audit since the daemon
            started.${view.readOnly ? " The console is read-only: run `erp-sync audit` on the daemon's host." : ''}
          </p>`;
  return html`${button ? html`<div class="actions">${button}</div>` : ''}${running}${last}`;
}
