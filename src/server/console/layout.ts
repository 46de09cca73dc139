import { html, type HtmlValue, type SafeHtml } from './html.js';
import { pageHead } from './pageHead.js';

export type Section = 'overview' | 'rejects' | 'orders' | 'audit' | 'explain' | 'none';

export interface LayoutOptions {
  title: string;
  section: Section;
  /** Open rejects and parked orders for the navigation (null: the store could not say). */
  counts: { rejects: number; parked: number } | null;
  readOnly: boolean;
  /** A message about the last action, above the content. */
  notice?: SafeHtml | null;
  /** Seconds between refreshes of the live parts. */
  refreshSeconds: number;
  body: HtmlValue;
}

const count = (n: number | undefined): SafeHtml | null =>
  n ? html` <span class="badge warn">${n.toLocaleString('en')}</span>` : null;

/** The page around every view: navigation, the item search, the footer with the time zone. */
export function layout(options: LayoutOptions): SafeHtml {
  const here = (section: Section) => (options.section === section ? html` class="here"` : '');
  return html`<!doctype html>
    <html lang="en">
      ${pageHead(options.title, '', true)}
      <body data-refresh="${options.refreshSeconds}">
        <header class="top">
          <a class="brand" href="/">erp-sync</a>
          <nav>
            <a href="/" ${here('overview')}>Overview</a>
            <a href="/rejects" ${here('rejects')}>Rejects${count(options.counts?.rejects)}</a>
            <a href="/orders" ${here('orders')}>Parked orders${count(options.counts?.parked)}</a>
            <a href="/audit" ${here('audit')}>Audit</a>
            <a href="/queues">Queues</a>
            <a href="/metrics">Metrics</a>
          </nav>
          <form class="find" method="get" action="/explain" role="search">
            <input
              name="q"
              placeholder="SKU or order id"
              aria-label="SKU or order id"
              required
              maxlength="200"
            />
            <button type="submit" name="kind" value="sku">SKU</button>
            <button type="submit" name="kind" value="order">Order</button>
          </form>
        </header>
        <main>${options.notice ?? ''} ${options.body}</main>
        <footer>
          Times in
          <span id="zone">UTC</span
          >${options.readOnly ? html` · <span class="badge">read-only</span> (server.dashboard.readOnly)` : ''}
          <span id="updated"></span>
        </footer>
      </body>
    </html> `;
}
