/**
 * The named parameters (`:since`) a query uses, read the way knex reads them but ignoring string
 * literals, quoted identifiers, comments and PostgreSQL casts (`x::date`). Used to refuse, when the
 * configuration is loaded, a parameter the adapter will not bind or a positional `?`, which knex
 * would otherwise turn into a driver error at the first run.
 */
export interface QueryParameters {
  named: string[];
  positional: boolean;
}

const LITERALS = /'(?:[^']|'')*'|"(?:[^"]|"")*"|`[^`]*`|\[[^\]]*\]|--[^\n]*|\/\*[\s\S]*?\*\//g;

export function queryParameters(sql: string): QueryParameters {
  const code = sql.replace(LITERALS, ' ');
  const named = new Set<string>();
  for (const match of code.matchAll(/(?<![:\w\\]):([A-Za-z_]\w*)/g)) named.add(match[1]!);
  const positional = /(?<!\\)\?/.test(code);
  return { named: [...named], positional };
}

/** Problems of one query against the parameters its place allows, as configuration messages. */
export function parameterProblems(sql: string, allowed: readonly string[]): string[] {
  const { named, positional } = queryParameters(sql);
  const problems: string[] = [];
  const unknown = named.filter((name) => !allowed.includes(name));
  if (unknown.length) {
    const can = allowed.length
      ? `it can use ${allowed.map((a) => `:${a}`).join(', ')}`
      : 'it takes no parameters';
    problems.push(`unknown parameter ${unknown.map((u) => `:${u}`).join(', ')} (${can})`);
  }
  if (positional)
    problems.push(
      'positional "?" placeholders are not supported: use named parameters (write \\? for a literal ?)',
    );
  return problems;
}
