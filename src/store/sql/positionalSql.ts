/** A statement in PostgreSQL's form: `$n` parameters, and the names bound to them in order. */
export interface PositionalSql {
  text: string;
  /** For named parameters: the name of $1, $2, ...; null when the statement uses `?`. */
  names: string[] | null;
}

/**
 * Rewrites the port's `?` and `@name` parameters as PostgreSQL's `$n`, leaving string literals,
 * quoted identifiers and comments alone. A name used twice is one parameter.
 */
export function positionalSql(sql: string): PositionalSql {
  let text = '';
  let count = 0;
  const names = new Map<string, number>();
  for (let i = 0; i < sql.length;) {
    const ch = sql[i]!;
    if (ch === "'" || ch === '"') {
      const end = closing(sql, i, ch);
      text += sql.slice(i, end);
      i = end;
    } else if (ch === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      const stop = end === -1 ? sql.length : end;
      text += sql.slice(i, stop);
      i = stop;
    } else if (ch === '?') {
      text += `$${++count}`;
      i += 1;
    } else if (ch === '@' && /[A-Za-z_]/.test(sql[i + 1] ?? '')) {
      const name = /^[A-Za-z_]\w*/.exec(sql.slice(i + 1))![0];
      let index = names.get(name);
      if (index === undefined) names.set(name, (index = names.size + 1));
      text += `$${index}`;
      i += 1 + name.length;
    } else {
      text += ch;
      i += 1;
    }
  }
  if (count > 0 && names.size > 0) throw new Error(`a statement mixes ? and @name parameters: ${sql}`);
  return { text, names: names.size > 0 ? [...names.keys()] : null };
}

/** The index just past the quote closing the one at `start` (a doubled quote is part of the text). */
function closing(sql: string, start: number, quote: string): number {
  for (let i = start + 1; i < sql.length; i += 1) {
    if (sql[i] !== quote) continue;
    if (sql[i + 1] === quote) i += 1;
    else return i + 1;
  }
  return sql.length;
}
