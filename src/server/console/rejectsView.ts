import type { StoredReject } from '../../store/index.js';
import { html, type SafeHtml } from './html.js';
import { cell, itemLink, placeOf, time } from './viewParts.js';

export interface RejectsQuery {
  pipeline?: string;
  sku?: string;
  /** 1-based. */
  page: number;
}

export const REJECTS_PAGE_SIZE = 50;

/** `/rejects?...` for the query (only the filters that are set). */
export function rejectsQueryString(query: RejectsQuery, page = query.page): string {
  const params = new URLSearchParams();
  if (query.pipeline) params.set('pipeline', query.pipeline);
  if (query.sku) params.set('sku', query.sku);
  if (page > 1) params.set('page', String(page));
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** The filter form (outside the live part, so typing is never interrupted by a refresh). */
export function rejectsFilters(query: RejectsQuery, pipelines: readonly string[]): SafeHtml {
  return html`<form class="filters" method="get" action="/rejects">
    <label
      >pipeline<select name="pipeline">
        <option value="">all</option>
        ${pipelines.map(
          (p) => html`<option value="${p}" ${query.pipeline === p ? html` selected` : ''}>${p}</option>`,
        )}
      </select></label
    >
    <label
      >SKU or order id<input name="sku" value="${query.sku ?? ''}" maxlength="200" placeholder="any"
    /></label>
    <button type="submit">Filter</button>
    ${query.pipeline || query.sku ? html`<a href="/rejects">clear</a>` : ''}
  </form>`;
}

/** The live part: one page of open rejects, newest first, each linked to its item's page. */
export function rejectsFragment(query: RejectsQuery, rejects: StoredReject[], total: number): SafeHtml {
  if (total === 0)
    return html`<p class="note ok">
      No open rejects${query.pipeline || query.sku ? ' matching the filter' : ''}: every row the ERP gave was
      taken.
    </p>`;
  const first = (query.page - 1) * REJECTS_PAGE_SIZE + 1;
  const last = first + rejects.length - 1;
  const pages = Math.max(1, Math.ceil(total / REJECTS_PAGE_SIZE));
  const pager = html`<div class="pager">
    <span>${rejects.length ? `${first}–${last}` : 'none'} of ${total.toLocaleString('en')} open</span>
    ${query.page > 1 ? html`<a href="/rejects${rejectsQueryString(query, query.page - 1)}">‹ newer</a>` : ''}
    ${query.page < pages ? html`<a href="/rejects${rejectsQueryString(query, query.page + 1)}">older ›</a>` : ''}
  </div>`;
  return html`${pager}
    <div class="panel">
      <table class="stack">
        <thead>
          <tr>
            <th>pipeline</th>
            <th>item</th>
            <th>reason</th>
            <th>place</th>
            <th class="num">seen</th>
            <th>first seen</th>
            <th>last seen</th>
          </tr>
        </thead>
        <tbody>
          ${rejects.map((r) => {
            const link = itemLink(r.pipeline, r.key, r.source);
            return html`<tr>
              ${cell('pipeline', r.pipeline)}
              ${cell('item', link ? html`<a href="${link}">${r.key}</a>` : r.key, 'mono')}
              ${cell('reason', r.reason, 'wrap')} ${cell('place', placeOf(r.source), 'mono')}
              ${cell('seen', `${r.count}×`, 'num')} ${cell('first seen', time(r.firstSeen))}
              ${cell('last seen', time(r.lastSeen))}
            </tr>`;
          })}
        </tbody>
      </table>
    </div>`;
}
