import type { ParkedOrder } from '../../store/ParkedOrderRepository.js';
import { html, type SafeHtml } from './html.js';
import { actionForm, cell, nextRetry, orderPath, time, type ViewContext } from './viewParts.js';

/** The live part of /orders: every parked order with its reason and a retry button. */
export function parkedFragment(view: ViewContext, parked: ParkedOrder[]): SafeHtml {
  if (parked.length === 0)
    return html`<p class="note ok">No parked orders: every platform order the ERP was given took it.</p>`;
  return html`<div class="actions">
      ${actionForm(view, '/actions/retry', { order: 'all' }, `Retry all ${parked.length}`, { primary: true, title: 'erp-sync orders retry' })}
    </div>
    <div class="panel">
      <table class="stack">
        <thead>
          <tr>
            <th>order</th>
            <th>number</th>
            <th>reason</th>
            <th class="num">attempts</th>
            <th>parked since</th>
            <th>next retry</th>
            ${view.readOnly ? '' : html`<th></th>`}
          </tr>
        </thead>
        <tbody>
          ${parked.map(
            (p) =>
              html`<tr>
                ${cell('order', html`<a href="${orderPath(p.platformOrderId)}">#${p.platformOrderId}</a>`)}
                ${cell('number', p.number ?? '–', 'mono nowrap')}
                ${cell('reason', html`${p.reason} <span class="muted small mono">${p.code}</span>`, 'wrap')}
                ${cell('attempts', String(p.attempts), 'num')} ${cell('parked since', time(p.firstParkedAt))}
                ${cell('next retry', nextRetry(p.nextAttemptAt))}
                ${view.readOnly ? '' : cell('', actionForm(view, '/actions/retry', { order: String(p.platformOrderId) }, 'Retry now', { title: `erp-sync orders retry ${p.platformOrderId}` }))}
              </tr>`,
          )}
        </tbody>
      </table>
    </div>`;
}
