import { html, type SafeHtml } from './html.js';

/**
 * What an action did, carried to the page it returns to in its `notice` parameter (post,
 * redirect, get: a reload does not repeat the action). Only known codes and checked values are shown, so a
 * crafted link cannot put words into the console.
 */
export type Notice =
  | { notice: 'sync'; pipeline: string; job: string }
  | { notice: 'retry'; orders: number; job: string }
  | { notice: 'retry-none' }
  | { notice: 'audit' }
  | { notice: 'audit-busy' };

const JOB_ID = /^[\w.-]{1,120}$/;

/** A notice as one query value, `sync:stock:JOB` (BullMQ ids hold no colon), so page filters stay. */
function encode(notice: Notice): string {
  switch (notice.notice) {
    case 'sync':
      return `sync:${notice.pipeline}:${notice.job}`;
    case 'retry':
      return `retry:${notice.orders}:${notice.job}`;
    default:
      return notice.notice;
  }
}

/** The page to go back to, with the notice: only a path of this console, never another site. */
export function backWithNotice(back: unknown, notice: Notice): string {
  const base = 'http://console.invalid';
  let url: URL;
  try {
    url = new URL(typeof back === 'string' && /^\/(?![/\\])/.test(back) ? back : '/', base);
  } catch {
    url = new URL('/', base);
  }
  if (url.origin !== base) url = new URL('/', base);
  url.searchParams.set('notice', encode(notice));
  return `${url.pathname}${url.search}`;
}

/** The message of the notice in a page's query, or null. */
export function noticeOf(query: Record<string, unknown>, pipelines: readonly string[]): SafeHtml | null {
  const value = typeof query.notice === 'string' ? query.notice : '';
  const [kind, first = '', job = ''] = value.split(':');
  switch (kind) {
    case 'sync':
      if (!pipelines.includes(first) || !JOB_ID.test(job)) return null;
      return html`<div class="note ok" role="status">
        A ${first} run was enqueued (job <span class="mono">runs/${job}</span>); the overview shows it once it
        has run.
      </div>`;
    case 'retry':
      if (!/^\d{1,7}$/.test(first) || !JOB_ID.test(job)) return null;
      return html`<div class="note ok" role="status">
        ${first} parked order(s) made due now, and an orders run enqueued (job
        <span class="mono">runs/${job}</span>): each is imported if the ERP takes it now, else parked again
        with the reason.
      </div>`;
    case 'retry-none':
      return html`<div class="note warn" role="status">
        That order is not parked any more: nothing to retry.
      </div>`;
    case 'audit':
      return html`<div class="note ok" role="status">
        The audit started; this page shows its report when it is done.
      </div>`;
    case 'audit-busy':
      return html`<div class="note warn" role="status">
        An audit is already running; its report appears here when it is done.
      </div>`;
    default:
      return null;
  }
}
