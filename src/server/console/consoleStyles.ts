/**
 * The console's stylesheet, served by the ops server at /console/console.css (no CDN, no build,
 * works offline). Tables scroll sideways on a phone; the wide ones turn into stacked cards.
 */
export const CONSOLE_CSS = `
:root {
  --bg: #f6f7f9; --panel: #fff; --text: #1d2430; --muted: #5d6878; --line: #dde2e8;
  --accent: #1f5fbf; --ok: #17803d; --ok-bg: #e3f4e8; --bad: #b42318; --bad-bg: #fdecea;
  --warn: #9a5b00; --warn-bg: #fff3dc; --info: #1f5fbf; --info-bg: #e6effc; --idle-bg: #eef0f3;
  color-scheme: light dark;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #14171c; --panel: #1c2027; --text: #e5e9ef; --muted: #9aa5b4; --line: #2e343e;
    --accent: #7fb0ff; --ok: #6fd08f; --ok-bg: #173322; --bad: #ff8a80; --bad-bg: #3a1c1c;
    --warn: #f3c069; --warn-bg: #3a2d14; --info: #7fb0ff; --info-bg: #1a2a44; --idle-bg: #262b33;
  }
}
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body {
  margin: 0; background: var(--bg); color: var(--text);
  font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
}
a { color: var(--accent); text-decoration: none; }
a:hover { text-decoration: underline; }
code, pre, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace; font-size: 0.9em; }
pre { white-space: pre-wrap; word-break: break-word; margin: 0.3rem 0 0; }
h1 { font-size: 1.35rem; margin: 0 0 0.8rem; }
h2 { font-size: 1.05rem; margin: 1.6rem 0 0.6rem; }
.top {
  display: flex; flex-wrap: wrap; align-items: center; gap: 0.4rem 1.2rem;
  padding: 0.6rem 1.2rem; background: var(--panel); border-bottom: 1px solid var(--line);
}
.brand { font-weight: 700; color: var(--text); font-size: 1.05rem; }
.top nav { display: flex; flex-wrap: wrap; gap: 0.2rem 0.9rem; }
.top nav a { color: var(--muted); padding: 0.2rem 0; border-bottom: 2px solid transparent; }
.top nav a.here { color: var(--text); border-bottom-color: var(--accent); }
.top nav a:hover { text-decoration: none; color: var(--text); }
.find { margin-left: auto; display: flex; gap: 0.3rem; }
.find input { width: 12rem; }
main { max-width: 1200px; margin: 0 auto; padding: 1.2rem; }
footer { max-width: 1200px; margin: 0 auto; padding: 0.5rem 1.2rem 2rem; color: var(--muted); font-size: 0.85rem; }
.stale { color: var(--bad); }
input, select, button {
  font: inherit; font-size: 0.9rem; padding: 0.3rem 0.55rem; border-radius: 6px;
  border: 1px solid var(--line); background: var(--panel); color: var(--text);
}
button { white-space: nowrap; cursor: pointer; border-color: var(--accent); color: var(--accent); font-weight: 600; }
button:hover { background: var(--info-bg); }
button.primary { background: var(--accent); color: #fff; }
button.primary:hover { filter: brightness(1.1); }
form.inline { display: inline; margin: 0; }
.filters { display: flex; flex-wrap: wrap; gap: 0.5rem; align-items: end; margin-bottom: 1rem; }
.filters label { display: flex; flex-direction: column; font-size: 0.8rem; color: var(--muted); gap: 0.15rem; }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(240px, 1fr)); gap: 0.8rem; }
.card { background: var(--panel); border: 1px solid var(--line); border-radius: 10px; padding: 0.8rem 1rem; min-width: 0; }
.card h3 { margin: 0 0 0.35rem; font-size: 0.78rem; text-transform: uppercase; letter-spacing: 0.04em; color: var(--muted); }
.card .big { font-size: 1.15rem; font-weight: 650; }
.card p { margin: 0.25rem 0 0; overflow-wrap: anywhere; }
.card ul { margin: 0.3rem 0 0; padding-left: 1.1rem; }
.muted { color: var(--muted); }
.nowrap { white-space: nowrap; }
.small { font-size: 0.85rem; }
.panel { background: var(--panel); border: 1px solid var(--line); border-radius: 10px; overflow-x: auto; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 0.45rem 0.7rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-size: 0.78rem; text-transform: uppercase; letter-spacing: 0.03em; color: var(--muted); font-weight: 600; white-space: nowrap; }
tr:last-child td { border-bottom: 0; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
td.wrap { overflow-wrap: anywhere; min-width: 12rem; }
td.mono { overflow-wrap: anywhere; }
tr.detail td { border-top: 0; padding-top: 0; color: var(--bad); font-size: 0.88rem; }
.badge {
  display: inline-block; padding: 0.05rem 0.5rem; border-radius: 999px; font-size: 0.8rem; font-weight: 600;
  background: var(--idle-bg); color: var(--muted); white-space: nowrap;
}
.badge.ok, .badge.in_step { background: var(--ok-bg); color: var(--ok); }
.badge.failed, .badge.blocked, .badge.bad { background: var(--bad-bg); color: var(--bad); }
.badge.interrupted, .badge.unknown, .badge.warn { background: var(--warn-bg); color: var(--warn); }
.badge.running, .badge.pending { background: var(--info-bg); color: var(--info); }
.note { border-radius: 10px; padding: 0.7rem 1rem; margin: 0 0 1rem; border: 1px solid var(--line); background: var(--panel); }
.note.ok { background: var(--ok-bg); border-color: transparent; }
.note.error { background: var(--bad-bg); color: var(--bad); border-color: transparent; }
.note.warn { background: var(--warn-bg); color: var(--warn); border-color: transparent; }
.verdict { font-size: 1.05rem; font-weight: 600; }
.verdict.in_step { background: var(--ok-bg); color: var(--ok); }
.verdict.pending { background: var(--info-bg); color: var(--info); }
.verdict.blocked { background: var(--bad-bg); color: var(--bad); }
.verdict.unknown, .verdict.not_in_erp { background: var(--warn-bg); color: var(--warn); }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 0.3rem 1rem; margin: 0; padding: 0.8rem 1rem; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
.pager { display: flex; gap: 1rem; align-items: center; margin: 0.7rem 0; color: var(--muted); }
.actions { display: flex; flex-wrap: wrap; gap: 0.5rem; align-items: center; margin: 0 0 1rem; }
@media (max-width: 700px) {
  body { font-size: 14px; }
  .top { padding: 0.5rem 0.8rem; }
  .find { margin-left: 0; width: 100%; }
  .find input { flex: 1; width: auto; }
  main { padding: 0.8rem; }
  table.stack thead { display: none; }
  table.stack, table.stack tbody, table.stack tr, table.stack td { display: block; width: 100%; }
  table.stack tr { border-bottom: 1px solid var(--line); padding: 0.35rem 0; }
  table.stack tr:last-child { border-bottom: 0; }
  table.stack td { border: 0; padding: 0.15rem 0.8rem; text-align: left; }
  table.stack td[data-label]::before {
    content: attr(data-label); display: inline-block; min-width: 7.5rem; color: var(--muted);
    font-size: 0.78rem; text-transform: uppercase; letter-spacing: 0.03em;
  }
  table.stack tr.detail td { padding-top: 0; }
  dl.facts { grid-template-columns: 1fr; gap: 0.1rem; }
  dl.facts dd { margin-bottom: 0.4rem; }
}
`;
