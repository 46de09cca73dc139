import { describeError } from '../../domain/errors.js';
import { describeSource, type RecordSource } from '../../domain/records.js';
import { html, type HtmlValue, type SafeHtml } from './html.js';

/** What every view needs to draw forms: the CSRF token, whether actions are off, and where it is. */
export interface ViewContext {
  csrf: string;
  readOnly: boolean;
  /** The page's own path and query: where an action comes back to. */
  here: string;
}

/** A time shown in the browser's zone by the script; UTC text without it. */
export function time(iso: string | null | undefined, options: { relative?: boolean } = {}): SafeHtml {
  if (!iso) return html`<span class="muted">never</span>`;
  return options.relative
    ? html`<time datetime="${iso}" data-rel>${iso}</time>`
    : html`<time class="nowrap" datetime="${iso}">${iso}</time>`;
}

/** When a parked order is retried next: "due now" once the time has come (`orders retry` sets it to 1970). */
export function nextRetry(iso: string, now = Date.now()): SafeHtml {
  return Date.parse(iso) <= now ? badge('due now', 'pending') : time(iso, { relative: true });
}

export function badge(text: string, kind: string = text): SafeHtml {
  return html`<span class="badge ${kind}">${text.replace(/_/g, ' ')}</span>`;
}

/** A box saying that a piece could not be read, and why (never a stack). */
export function problem(what: string, error: unknown): SafeHtml {
  return html`<div class="note error" role="alert"><strong>${what}</strong>: ${describeError(error)}</div>`;
}

/** A POST form with the CSRF token: nothing at all when the console is read-only. */
export function actionForm(
  view: ViewContext,
  action: string,
  fields: Record<string, string>,
  label: string,
  options: { primary?: boolean; title?: string } = {},
): SafeHtml | null {
  if (view.readOnly) return null;
  const hidden = Object.entries(fields).map(
    ([name, value]) => html`<input type="hidden" name="${name}" value="${value}" />`,
  );
  return html`<form class="inline" method="post" action="${action}">
    <input type="hidden" name="_csrf" value="${view.csrf}" /><input
      type="hidden"
      name="back"
      value="${view.here}"
    />${hidden}<button
      type="submit"
      ${options.primary ? html` class="primary"` : ''}${options.title ? html` title="${options.title}"` : ''}
    >
      ${label}
    </button>
  </form>`;
}

/** A table cell with the label a phone shows before its value (stacked tables). */
export function cell(label: string, content: HtmlValue, cls = ''): SafeHtml {
  return html`<td data-label="${label}" ${cls ? html` class="${cls}"` : ''}>${content}</td>`;
}

export function num(value: unknown): string {
  return typeof value === 'number' && Number.isFinite(value) ? value.toLocaleString('en') : '–';
}

/** A duration in seconds, short. */
export function duration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return '–';
  if (seconds < 10) return `${seconds.toFixed(2)} s`;
  if (seconds < 120) return `${Math.round(seconds)} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 120) return `${minutes} min ${Math.round(seconds - minutes * 60)} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** How long ago, in whole units: `12 s`, `6 min`, `3 h 5 min`, `4 d`. */
export function ago(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min`;
  if (s < 172_800) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
  return `${Math.floor(s / 86_400)} d`;
}

/** A value of a story: text, or JSON for an object. */
export function shown(value: unknown): string {
  if (value === null || value === undefined) return 'none';
  if (typeof value !== 'object') return String(value);
  if (Array.isArray(value)) return JSON.stringify(value);
  // `price 382.99, salePrice 325.54`: easier to read than JSON, and it wraps
  return Object.entries(value)
    .map(
      ([key, field]) =>
        `${key} ${typeof field === 'object' && field !== null ? JSON.stringify(field) : String(field)}`,
    )
    .join(', ');
}

/** Where a reject's row is: `stock.csv:12`, `stock query:3`, `product.product 7`, with the row when known. */
export function placeOf(source: RecordSource | null): string {
  if (!source) return '';
  const where = describeSource(source);
  return source.row && where !== source.row ? `${where}: ${source.row}` : where;
}

const SKU_PIPELINES = new Set(['stock', 'prices', 'products', 'catalog']);

/** The item page of a reject's key: its SKU's (variants too) or its order's; null when it has none. */
export function itemLink(pipeline: string, key: string, source: RecordSource | null): string | null {
  // A row without a SKU is keyed by its place: there is no item to explain.
  if (source && key === describeSource(source)) return null;
  if (SKU_PIPELINES.has(pipeline)) return skuPath(key.split('/')[0]!);
  if (pipeline === 'orders' && /^[1-9]\d{0,15}$/.test(key)) return orderPath(Number(key));
  return null;
}

export const skuPath = (sku: string): string => `/explain/sku?sku=${encodeURIComponent(sku)}`;
export const orderPath = (id: number): string => `/explain/order?id=${id}`;
