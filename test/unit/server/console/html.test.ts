import { describe, expect, it } from 'vitest';
import { escapeHtml, html } from '../../../../src/server/console/html.js';

describe('html (the console template)', () => {
  it('escapes every interpolated value, in content and in attributes', () => {
    const evil = `<script>alert("x")</script>' onmouseover='1' \`&`;
    const out = html`<p title="${evil}">${evil}</p>`.text;
    expect(out).not.toContain('<script>');
    expect(out).not.toMatch(/title="[^"]*"[^>]*onmouseover/);
    expect(out).toBe(
      `<p title="${escapeHtml(evil)}">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39; onmouseover=&#39;1&#39; &#96;&amp;</p>`,
    );
  });

  it('keeps markup made by html itself, joins lists, and renders nothing for null, undefined and false', () => {
    const inner = html`<b>${'<i>'}</b>`;
    const items = ['a<', 'b>'].map((x) => html`<li>${x}</li>`);
    const absent = null;
    expect(html`<div>${inner}${items}${absent}${undefined}${false}${0}</div>`.text).toBe(
      '<div><b>&lt;i&gt;</b><li>a&lt;</li><li>b&gt;</li>0</div>',
    );
  });

  it('does not take a look-alike object for markup', () => {
    const fake = { text: '<script>' } as unknown as string;
    expect(html`${fake}`.text).toBe('[object Object]');
  });
});
