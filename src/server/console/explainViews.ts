import type { OrderStory } from '../../diagnostics/explainOrder.js';
import type { ItemPipelineStory, SkuJobs, SkuStory } from '../../diagnostics/explainSku.js';
import { html, type SafeHtml } from './html.js';
import { actionForm, badge, cell, nextRetry, shown, time, type ViewContext } from './viewParts.js';

function verdictBox(state: string, text: string): SafeHtml {
  return html`<div class="note verdict ${state}">${badge(state)} ${text}</div>`;
}

function erpNow(p: ItemPipelineStory): SafeHtml | string {
  if (!p.erp) return html`<span class="muted">no row</span>`;
  if ('rejected' in p.erp)
    return html`<span class="badge failed">rejected</span>
      ${p.erp.rejected}${p.erp.source ? html` <span class="muted mono">at ${p.erp.source}</span>` : ''}`;
  return html`${shown(p.erp.value)}${p.erp.source ? html` <span class="muted mono">(${p.erp.source})</span>` : ''}`;
}

function acknowledged(p: ItemPipelineStory): SafeHtml | string {
  const a = p.acknowledged;
  if (!a) return html`<span class="muted">never</span>`;
  if (a.notOnPlatform) return html`not on the platform (reported ${time(a.at)})`;
  if (a.inFlight)
    return html`${a.value.slice(1)} sent, answer not recorded (in flight or lost): sent again next run`;
  return html`${a.value}${a.refused ? html` ${badge('refused', 'bad')}` : ''} at
  ${time(a.at)}${a.byRun ? ` by run #${a.byRun}` : ''}`;
}

function heldBack(p: ItemPipelineStory): string {
  if (p.held === undefined) return '–';
  const orders = p.holdingOrders?.length
    ? ` by ${p.holdingOrders.map((o) => `#${o.orderId} (${o.units})`).join(', ')}`
    : '';
  return `${p.held}${orders}; buffer ${p.buffer ?? 0}`;
}

function pipelineRow(name: string, p: ItemPipelineStory): SafeHtml {
  return html`<tr>
    ${cell('pipeline', html`<strong>${name}</strong>`)}
    ${cell('verdict', html`${badge(p.verdict.state)} ${p.verdict.text}`, 'wrap')}
    ${cell('ERP now', erpNow(p), 'mono')} ${cell('held back', heldBack(p), 'mono')}
    ${cell('would push', shown(p.wouldPush), 'mono')} ${cell('acknowledged', acknowledged(p), 'mono')}
    ${cell('platform now', p.platform === undefined ? 'not read' : shown(p.platform), 'mono')}
  </tr>`;
}

function jobsPart(sku: string, jobs: SkuJobs | undefined): SafeHtml | string {
  if (!jobs) return '';
  if (!jobs.read)
    return html`could not be read: ${jobs.error ?? '?'} <span class="muted">(${jobs.where})</span>`;
  const looked = `${jobs.scanned} push job(s) looked at${jobs.truncated ? ', the bound' : ''}`;
  if (!jobs.jobs.length)
    return html`none queued or failed carrying ${sku} <span class="muted">(${looked})</span>`;
  return html`<ul>
      ${jobs.jobs.map(
        (job) =>
          html`<li class="mono">
            ${job.queue}/${job.id} ${job.name}
            ${badge(job.state, job.state === 'failed' ? 'bad' : 'pending')}, generation ${job.generation},
            ${job.attempts} attempt(s)${job.failedReason ? `: ${job.failedReason}` : ''};
            ${job.items.map((i) => `${i.key} ${i.value}`).join(', ')}
          </li>`,
      )}
    </ul>
    <span class="muted small">${looked}</span>`;
}

/** `erp-sync explain sku` in the browser. */
export function skuStoryView(story: SkuStory): SafeHtml {
  const platform = !story.platform.read
    ? html`could not be read: ${story.platform.error ?? '?'}
        <span class="muted">(what follows is the store's part)</span>`
    : story.platform.found
      ? `product #${story.platform.productId} (${story.platform.status ?? '?'})`
      : 'does not have it';
  return html`<h1>SKU <span class="mono">${story.sku}</span></h1>
    ${verdictBox(story.verdict.state, story.verdict.text)}
    <div class="panel">
      <dl class="facts">
        <dt>ERP</dt>
        <dd>
          ${story.erp.read ? (story.erp.has ? 'has it' : 'does not have it') : html`could not be read: ${story.erp.error ?? '?'}`}
        </dd>
        <dt>platform</dt>
        <dd>${platform}</dd>
        ${
          story.jobs
            ? html`<dt>jobs</dt>
                <dd>${jobsPart(story.sku, story.jobs)}</dd>`
            : ''
        }
      </dl>
    </div>
    ${story.items.map(
      (item) =>
        html`<h2 class="mono">${item.key}</h2>
          <div class="panel">
            <table class="stack">
              <thead>
                <tr>
                  <th>pipeline</th>
                  <th>verdict</th>
                  <th>ERP now</th>
                  <th>held back</th>
                  <th>would push</th>
                  <th>acknowledged</th>
                  <th>platform now</th>
                </tr>
              </thead>
              <tbody>
                ${pipelineRow('stock', item.stock)}${pipelineRow('prices', item.prices)}
              </tbody>
            </table>
          </div>
          ${item.rejects.map(
            (r) =>
              html`<p class="small">
                <span class="badge failed">open reject</span> ${r.pipeline}, since ${time(r.since)}, seen
                ${r.count}×: ${r.reason}
              </p>`,
          )}`,
    )}
    ${runsPart(story.runs)}`;
}

function runsPart(runs: SkuStory['runs']): SafeHtml | string {
  if (!runs.length) return '';
  return html`<h2>Last runs</h2>
    <div class="panel">
      <table class="stack">
        <thead>
          <tr>
            <th>#</th>
            <th>pipeline</th>
            <th>outcome</th>
            <th>finished</th>
            <th>error</th>
          </tr>
        </thead>
        <tbody>
          ${runs.map(
            (r) =>
              html`<tr>
                ${cell('#', String(r.id), 'num')}${cell('pipeline', r.pipeline)}${cell('outcome', badge(r.status))}${cell('finished', time(r.finishedAt ?? r.startedAt))}${cell('error', r.error ?? '', 'wrap')}
              </tr>`,
          )}
        </tbody>
      </table>
    </div>`;
}

function erpNowOfOrder(now: OrderStory['erpNow'], bornInErp: boolean): SafeHtml | string | null {
  if (!now.asked)
    return bornInErp
      ? null
      : html`<span class="muted">not asked (this ERP adapter cannot look orders up)</span>`;
  if (!now.read) return html`could not be read: ${now.error ?? '?'}`;
  if (!now.location) return 'not in the ERP';
  const { erpRef, place, at, facts } = now.location;
  const more = Object.entries(facts).map(([key, value]) => `${key} ${shown(value)}`);
  return html`<span class="mono">${erpRef}</span> at <span class="mono">${place}</span>, since
    ${time(at)}${more.length ? `; ${more.join(', ')}` : ''}`;
}

/** The platform's status history as steps when it has the usual shape, else as JSON. */
function historyOf(history: unknown): SafeHtml {
  const steps = Array.isArray(history) ? (history as Record<string, unknown>[]) : null;
  const usual = steps?.every((step) => step && typeof step === 'object' && typeof step.to === 'string');
  if (!steps || !usual) return html`<span class="mono">${shown(history)}</span>`;
  return html`${steps.map(
    (step, i) =>
      html`${i ? html`<br />` : ''}${typeof step.from === 'string' ? `${step.from} → ` : ''}${String(step.to)}${typeof step.at === 'string' ? html` ${time(step.at)}` : ''}${typeof step.note === 'string' ? ` (${step.note})` : ''}`,
  )}`;
}

/** `erp-sync explain order` in the browser, with the retry button when the order is parked. */
export function orderStoryView(view: ViewContext, story: OrderStory): SafeHtml {
  const { platform: p, erp, parked } = story;
  const platform = !p.read
    ? html`could not be read: ${p.error ?? '?'} <span class="muted">(what follows is the store's part)</span>`
    : !p.found
      ? 'does not know this order'
      : html`${p.number ?? '?'}, ${p.status}/${p.paymentStatus}, created ${time(p.createdAt)}, updated
        ${time(p.updatedAt)}`;
  const erpText = erp.bornInErp
    ? `born in the ERP as ${erp.bornInErp.sourceOrderId} (${erp.bornInErp.state})`
    : erp.reference
      ? html`<span class="mono">${erp.reference}</span>, imported
          ${time(erp.importedAt)}${erp.acknowledgedAt ? html`, acknowledged ${time(erp.acknowledgedAt)}` : ''};
          last received ${erp.deliveredStatus}/${erp.deliveredPaymentStatus} (${erp.changesDelivered}
          change(s) delivered)${erp.pendingChange ? `; delivering ${shown(erp.pendingChange)}` : ''}`
      : 'not imported';
  const now = erpNowOfOrder(story.erpNow, erp.bornInErp !== null);
  return html`<h1>Order <span class="mono">${story.orderId}</span></h1>
    ${verdictBox(story.verdict.state, story.verdict.text)}
    ${parked ? html`<div class="actions">${actionForm(view, '/actions/retry', { order: String(story.orderId) }, 'Retry now', { primary: true, title: `erp-sync orders retry ${story.orderId}` })}</div>` : ''}
    <div class="panel">
      <dl class="facts">
        <dt>platform</dt>
        <dd>${platform}</dd>
        ${
          p.awb
            ? html`<dt>AWB</dt>
                <dd class="mono">${shown(p.awb)}</dd>`
            : ''
        }
        ${
          p.invoice
            ? html`<dt>invoice</dt>
                <dd class="mono">${shown(p.invoice)}</dd>`
            : ''
        }
        ${
          p.history !== undefined
            ? html`<dt>history</dt>
                <dd>${historyOf(p.history)}</dd>`
            : ''
        }
        <dt>ERP</dt>
        <dd>${erpText}</dd>
        ${
          now
            ? html`<dt>ERP now</dt>
                <dd>${now}</dd>`
            : ''
        }
        ${
          parked
            ? html`<dt>parked</dt>
                <dd>
                  <span class="mono">${parked.code}</span>: ${parked.reason}; ${parked.attempts} attempt(s)
                  since ${time(parked.firstParkedAt)}, next ${nextRetry(parked.nextAttemptAt)}
                </dd>`
            : ''
        }
      </dl>
    </div>
    ${
      story.events.length
        ? html`<h2>ERP events</h2>
            <div class="panel">
              <table class="stack">
                <thead>
                  <tr>
                    <th>at</th>
                    <th>kind</th>
                    <th>event</th>
                    <th>outcome</th>
                    <th>detail</th>
                  </tr>
                </thead>
                <tbody>
                  ${story.events.map(
                    (e) =>
                      html`<tr>
                        ${cell('at', time(e.at))}${cell('kind', e.kind)}${cell('event', e.eventId, 'mono')}${cell('outcome', badge(e.outcome, e.outcome === 'rejected' ? 'bad' : e.outcome === 'applied' ? 'ok' : 'idle'))}${cell('detail', e.detail ?? '', 'wrap')}
                      </tr>`,
                  )}
                </tbody>
              </table>
            </div>`
        : ''
    }`;
}
