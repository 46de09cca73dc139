/**
 * A small, predictable JSON -> XML mapping for outbox files: objects become elements named by
 * their keys, arrays become a container whose children are `<item>`, null becomes an empty
 * element with `nil="true"`. Keys that are not valid XML names are prefixed with `_`.
 */
export function toXmlDocument(rootName: string, value: unknown): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n${element(rootName, value, '')}\n`;
}

function element(name: string, value: unknown, indent: string): string {
  const tag = xmlName(name);
  if (value === null || value === undefined) return `${indent}<${tag} nil="true"/>`;
  if (Array.isArray(value)) {
    if (value.length === 0) return `${indent}<${tag}/>`;
    const children = value.map((item) => element('item', item, `${indent}  `)).join('\n');
    return `${indent}<${tag}>\n${children}\n${indent}</${tag}>`;
  }
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 0) return `${indent}<${tag}/>`;
    const children = entries.map(([key, child]) => element(key, child, `${indent}  `)).join('\n');
    return `${indent}<${tag}>\n${children}\n${indent}</${tag}>`;
  }
  return `${indent}<${tag}>${escapeText(String(value))}</${tag}>`;
}

function xmlName(name: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9_.-]/g, '_');
  return /^[A-Za-z_]/.test(cleaned) && !/^xml/i.test(cleaned) ? cleaned : `_${cleaned}`;
}

function escapeText(text: string): string {
  return (
    text
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      // Characters XML 1.0 cannot carry at all are dropped rather than producing an unreadable file.
      // eslint-disable-next-line no-control-regex
      .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/g, '')
  );
}
