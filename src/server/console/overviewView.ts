import { describeAccount } from '../../sync/StoreAccountMismatchError.js';
import type { ConsoleRun, ConsoleStatus, ErpState } from './ConsoleSources.js';
import { html, type SafeHtml } from './html.js';
import { actionForm, ago, badge, cell, duration, num, problem, time, type ViewContext } from './viewParts.js';

/** Each piece of the overview, or why it could not be read. */
export type Piece<T> = { ok: true; value: T } | { ok: false; error: unknown };

/** As /readyz answers. */
export interface Readiness {
  ready: boolean;
  reasons: string[];
}

/** As /healthz answers. */
export interface Health {
  healthy: boolean;
  eventLoopLagMs: number;
  uptimeSeconds: number;
}

export interface OverviewData {
  health: Health;
  readiness: Piece<Readiness>;
  status: Piece<ConsoleStatus>;
  erp: Piece<ErpState>;
  runs: Piece<ConsoleRun[]>;
  /** The API base URL. */
  platform: string;
}

const COUNTED = ['read', 'sent', 'applied', 'rejected'] as const;

function secondsOf(run: {
  counts: Record<string, unknown> | null;
  startedAt: string | null;
  finishedAt: string | null;
}): number | null {
  const seconds = run.counts?.seconds;
  if (typeof seconds === 'number') return seconds;
  if (!run.startedAt || !run.finishedAt) return null;
  return (Date.parse(run.finishedAt) - Date.parse(run.startedAt)) / 1000;
}

function healthCard(health: Health): SafeHtml {
  return html`<div class="card">
    <h3>Health</h3>
    <p class="big">${health.healthy ? badge('alive', 'ok') : badge('event loop blocked', 'bad')}</p>
    <p class="muted small">
      event-loop lag ${health.eventLoopLagMs} ms · up ${duration(health.uptimeSeconds)}
    </p>
  </div>`;
}

function readinessCard(readiness: Piece<Readiness>): SafeHtml {
  if (!readiness.ok)
    return html`<div class="card">
      <h3>Readiness</h3>
      <p class="big">${badge('unknown', 'warn')}</p>
      ${problem('the readiness check failed', readiness.error)}
    </div>`;
  const { ready, reasons } = readiness.value;
  return html`<div class="card">
    <h3>Readiness</h3>
    <p class="big">${ready ? badge('ready', 'ok') : badge('not ready', 'bad')}</p>
    ${
      reasons.length
        ? html`<ul>
            ${reasons.map((r) => html`<li>${r}</li>`)}
          </ul>`
        : html`<p class="muted small">Redis reachable, API key accepted, nothing paused</p>`
    }
  </div>`;
}

function queuesCard(daemon: ConsoleStatus['daemon']): SafeHtml {
  if (!daemon.reachable)
    return html`<div class="card">
      <h3>Queues</h3>
      <p class="big">${badge('Redis not reachable', 'bad')}</p>
      <p class="small">${daemon.error ?? 'no reason given'}</p>
      <p class="muted small">${daemon.redis}</p>
    </div>`;
  return html`<div class="card">
    <h3>Queues</h3>
    <p class="big">${daemon.paused ? badge('paused', 'bad') : badge('running', 'ok')}</p>
    ${daemon.paused ? html`<p class="small">since ${time(daemon.paused.since)}: ${daemon.paused.reason}</p>` : ''}
    <p class="muted small">${daemon.daemons} daemon(s) on ${daemon.redis}</p>
  </div>`;
}

function accountCard(status: ConsoleStatus, platform: string): SafeHtml {
  const account = status.account;
  return html`<div class="card">
    <h3>Account</h3>
    ${
      account
        ? html`<p class="big">${account.companyName ?? `company ${account.companyId}`}</p>
            <p class="small">${describeAccount(account).replace(/^the account /, '')}</p>
            <p class="muted small">store bound since ${time(account.boundAt)}</p>
            ${
              account.previousBaseUrl
                ? html`<p class="muted small">
                    address changed from ${account.previousBaseUrl} at ${time(account.movedAt)}
                  </p>`
                : ''
            }`
        : html`<p class="small">${platform}</p>
            <p class="muted small">the store is not bound to an account yet</p>`
    }
  </div>`;
}

function erpCard(erp: Piece<ErpState>): SafeHtml {
  if (!erp.ok)
    return html`<div class="card">
      <h3>ERP</h3>
      ${problem('the ERP could not be checked', erp.error)}
    </div>`;
  return html`<div class="card">
    <h3>ERP</h3>
    <p class="big">
      ${erp.value.kind} ${erp.value.ok ? badge('check ok', 'ok') : badge('check failed', 'bad')}
    </p>
    <pre class="small">${erp.value.details}</pre>
  </div>`;
}

function backlogCard(status: ConsoleStatus): SafeHtml {
  const open = status.rejects.open;
  const parked = status.parkedOrders.length;
  return html`<div class="card">
    <h3>Backlog</h3>
    <p>
      <a href="/rejects">${open.toLocaleString('en')} open reject(s)</a>${
        open
          ? html` <span class="muted small"
              >${Object.entries(status.rejects.byPipeline)
                .map(([p, n]) => `${p} ${n}`)
                .join(', ')}</span
            >`
          : ''
      }
    </p>
    <p><a href="/orders">${parked.toLocaleString('en')} parked order(s)</a></p>
  </div>`;
}

function pipelineRows(view: ViewContext, status: ConsoleStatus): SafeHtml[] {
  return status.pipelines.map((p) => {
    const schedule = status.daemon.pipelines[p.pipeline];
    const counts = p.counts ?? {};
    const when = p.finishedAt ?? p.startedAt;
    const lag =
      schedule?.lagSeconds === null || schedule?.lagSeconds === undefined
        ? 'never'
        : ago(schedule.lagSeconds);
    const row = html`<tr>
      ${cell('pipeline', html`<strong>${p.pipeline}</strong>`)}
      ${cell('last run', when ? time(when) : html`<span class="muted">never run</span>`)}
      ${cell('outcome', p.status ? badge(p.status) : badge('never', 'idle'))}
      ${COUNTED.map((key) => cell(key, num(counts[key]), 'num'))}
      ${cell('duration', duration(secondsOf(p)), 'num')}
      ${cell('next run', schedule ? (schedule.schedule === 'off' ? html`<span class="muted">off</span>` : html`${time(schedule.nextRun, { relative: true })}<br /><span class="muted small mono">${schedule.schedule}</span>`) : '')}
      ${cell('since success', lag, 'num nowrap')}
      ${view.readOnly ? '' : cell('', actionForm(view, '/actions/sync', { pipeline: p.pipeline }, 'Sync now', { title: `erp-sync sync ${p.pipeline}` }))}
    </tr>`;
    if (!p.error) return row;
    return html`${row}
      <tr class="detail">
        <td colspan="${view.readOnly ? 9 : 10}">${p.error}</td>
      </tr>`;
  });
}

function pipelinesTable(view: ViewContext, status: ConsoleStatus): SafeHtml {
  return html`<h2>Pipelines</h2>
    <div class="panel">
      <table class="stack">
        <thead>
          <tr>
            <th>pipeline</th>
            <th>last run</th>
            <th>outcome</th>
            ${COUNTED.map((k) => html`<th class="num">${k}</th>`)}
            <th class="num">duration</th>
            <th>next run</th>
            <th class="num">since success</th>
            ${view.readOnly ? '' : html`<th></th>`}
          </tr>
        </thead>
        <tbody>
          ${pipelineRows(view, status)}
        </tbody>
      </table>
    </div>`;
}

const QUEUE_STATES = [
  'waiting',
  'active',
  'delayed',
  'prioritized',
  'waiting-children',
  'failed',
  'completed',
];

function queuesTable(daemon: ConsoleStatus['daemon']): SafeHtml {
  if (!daemon.reachable)
    return html`<h2>Queues</h2>
      ${problem('Redis is not reachable', daemon.error ?? 'no reason given')}`;
  return html`<h2>Queues</h2>
    <div class="panel">
      <table>
        <thead>
          <tr>
            <th>queue</th>
            <th>state</th>
            ${QUEUE_STATES.map((s) => html`<th class="num">${s}</th>`)}
          </tr>
        </thead>
        <tbody>
          ${Object.entries(daemon.queues).map(
            ([name, queue]) =>
              html`<tr>
                ${cell('queue', html`<a href="/queues/queue/${encodeURIComponent(name)}">${name}</a>`)}
                ${cell('state', queue.paused ? badge('paused', 'bad') : badge('running', 'ok'))}
                ${QUEUE_STATES.map((s) => cell(s, num(queue.counts[s] ?? 0), s === 'failed' && queue.counts[s] ? 'num bad' : 'num'))}
              </tr>`,
          )}
        </tbody>
      </table>
    </div>`;
}

function runsTable(runs: Piece<ConsoleRun[]>): SafeHtml {
  if (!runs.ok)
    return html`<h2>Recent runs</h2>
      ${problem('the runs could not be read', runs.error)}`;
  if (runs.value.length === 0)
    return html`<h2>Recent runs</h2>
      <p class="muted">No run yet.</p>`;
  return html`<h2>Recent runs</h2>
    <div class="panel">
      <table>
        <thead>
          <tr>
            <th>#</th>
            <th>pipeline</th>
            <th>started</th>
            <th>outcome</th>
            ${COUNTED.map((k) => html`<th class="num">${k}</th>`)}
            <th class="num">duration</th>
          </tr>
        </thead>
        <tbody>
          ${runs.value.map((run) => {
            const counts = run.counts ?? {};
            const row = html`<tr>
              ${cell('#', String(run.id), 'num')} ${cell('pipeline', run.pipeline)}
              ${cell('started', time(run.startedAt))} ${cell('outcome', badge(run.status))}
              ${COUNTED.map((key) => cell(key, num(counts[key]), 'num'))}
              ${cell('duration', duration(secondsOf(run)), 'num')}
            </tr>`;
            return run.error
              ? html`${row}
                  <tr class="detail">
                    <td colspan="9">${run.error}</td>
                  </tr>`
              : row;
          })}
        </tbody>
      </table>
    </div>`;
}

/** The overview's live part: cards, pipelines, queues, recent runs; a piece that failed says so. */
export function overviewFragment(view: ViewContext, data: OverviewData): SafeHtml {
  const status = data.status;
  return html`<div class="cards">
      ${healthCard(data.health)} ${readinessCard(data.readiness)}
      ${status.ok ? queuesCard(status.value.daemon) : ''}
      ${status.ok ? accountCard(status.value, data.platform) : ''} ${erpCard(data.erp)}
      ${status.ok ? backlogCard(status.value) : ''}
    </div>
    ${
      status.ok
        ? html`${pipelinesTable(view, status.value)}${queuesTable(status.value.daemon)}`
        : problem('The status could not be read', status.error)
    }
    ${runsTable(data.runs)}`;
}
