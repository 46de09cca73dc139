/** Markup that is already safe to send: built by `html` (every value in it escaped) or a constant. */
export class SafeHtml {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

/** What may stand in a `${}` of `html`: text (escaped), markup made by `html`, or lists of them. */
export type HtmlValue = SafeHtml | string | number | boolean | null | undefined | readonly HtmlValue[];

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
};

/** Text for an element's content or a quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (c) => ESCAPES[c]!);
}

function render(value: HtmlValue): string {
  if (value instanceof SafeHtml) return value.text;
  if (Array.isArray(value)) return value.map((v: HtmlValue) => render(v)).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

/**
 * The console's one template: a tagged template literal that escapes every interpolated value
 * (names, reasons, ERP rows, error messages all come from outside) unless it is `SafeHtml` made
 * by this same function. `null`, `undefined` and `false` render nothing, so `${cond && html`...`}`
 * works. Attribute values must be quoted in the template.
 */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1]!;
  return new SafeHtml(out);
}
