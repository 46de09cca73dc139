/** Words of PromQL that look like metric names but are not (operators and modifiers). */
const KEYWORDS = new Set([
  'and',
  'or',
  'unless',
  'bool',
  'offset',
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'inf',
  'nan',
]);

/**
 * The metric names a PromQL expression selects: strings, label matchers, ranges and grouping
 * label lists are removed, then every identifier that is not a function call or a keyword is a
 * metric name. Enough for the expressions of our dashboard and rules, not a full parser.
 */
export function promqlMetricNames(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const names = new Set<string>();
  for (const match of stripped.matchAll(/(?<![\w:.$])([a-zA-Z_:][\w:]*)(?![\w:])(\s*\()?/g)) {
    const [, name, call] = match;
    if (call || KEYWORDS.has(name!.toLowerCase())) continue;
    names.add(name!);
  }
  return [...names];
}

/** Names of the metric families in a text exposition, with the series names of histograms. */
export function exposedMetricNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)/.exec(line);
    if (!type) continue;
    const [, name, kind] = type;
    names.add(name!);
    if (kind === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(name! + suffix);
    if (kind === 'summary') for (const suffix of ['_sum', '_count']) names.add(name! + suffix);
  }
  return names;
}
