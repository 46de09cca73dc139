import { html, type SafeHtml } from './html.js';

/** The `<head>` of every console page; `prefix` is where the page's console assets are served. */
export function pageHead(title: string, prefix: string, withScript: boolean): SafeHtml {
  return html`<head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="referrer" content="no-referrer" />
    <title>${title} · erp-sync</title>
    <link rel="icon" href="data:," />
    <link rel="stylesheet" href="${prefix}/console/console.css" />
    ${withScript ? html`<script src="${prefix}/console/console.js" defer></script>` : ''}
  </head>`;
}
