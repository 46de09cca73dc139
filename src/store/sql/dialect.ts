/** One pair of a pairs() list: a key and the hash it is given. */
export interface KeyHash {
  readonly key: string;
  readonly hash: string;
}

/**
 * The one place that knows how the store's SQL differs between SQLite and PostgreSQL. The
 * repositories write standard SQL (upserts, RETURNING, `?` or `@name` parameters) and take the
 * few differing fragments from here.
 */
export interface Dialect {
  readonly name: 'sqlite' | 'postgres';
  /**
   * A FROM item `alias` with one column `value`: the elements of a JSON array passed as the
   * statement's next parameter (one parameter whatever the list's length).
   */
  list(alias: string, type: 'text' | 'integer'): string;
  /**
   * list() of text whose FROM item also has `position`, the element's place in the array: what
   * `ORDER BY alias.position` returns rows in (json_each's `key`, PostgreSQL's WITH ORDINALITY).
   */
  orderedList(alias: string): string;
  /** A FROM item `alias` whose `value` is each element (itself an array) of a JSON array parameter. */
  rows(alias: string): string;
  /**
   * A FROM item `alias` with text columns `key` and `value` (a pair's hash): pairs bound as the
   * statement's next parameters, in the form pairParams() writes. SQLite: a multi-row VALUES of
   * `rows` rows of plain parameters (half the CPU of the same pairs as JSON parsed again by
   * json_each), so a statement per row count (`pairsByCount`); a key given twice is written twice,
   * in order (the later row's upsert wins). PostgreSQL: one JSON object parameter whatever the
   * count (it plans a statement of 2000 parameters again at each run: three times the time of the
   * JSON), a key once (its upsert refuses to touch a row twice in one statement): the last wins.
   */
  pairs(alias: string, rows: number): string;
  /** How many parameters pairParams() writes for `rows` pairs. */
  pairParamCount(rows: number): number;
  /**
   * Writes the parameters of pairs() for `pairs[from]` to `pairs[from + rows - 1]` into `params`
   * from index `at`: the caller's array, kept per statement, not one built per run.
   */
  pairParams(params: unknown[], at: number, pairs: readonly KeyHash[], from: number, rows: number): void;
  readonly pairsByCount: boolean;
  /** Element `index` of an array-valued `value` from rows(). */
  field(alias: string, index: number, type: 'text' | 'integer'): string;
  /**
   * Joins `table AS alias` to the list before it, one key lookup per element: what a batch read
   * by keys must be whatever the planner guesses. SQLite plans a plain JOIN by its own estimate
   * and may scan the table once per key: CROSS JOIN keeps the list outside. PostgreSQL guesses 100
   * elements for any list and, before its statistics of a freshly filled table exist, hashes the
   * whole table (100k rows for 1000 keys): a LATERAL subquery with OFFSET 0 (which it does not
   * flatten) makes it look each key up in the index.
   */
  probe(table: string, alias: string, on: string): string;
  /** probe() as a LEFT JOIN: a list element with no row of the table gives a row of NULLs. */
  probeOrNull(table: string, alias: string, on: string): string;
  /** The smaller of two values (SQLite's two-argument min). */
  least(a: string, b: string): string;
  /** The LIMIT value that means "no limit". */
  readonly noLimit: number | null;
}

export const SQLITE: Dialect = {
  name: 'sqlite',
  list: (alias) => `json_each(?) AS ${alias}`,
  rows: (alias) => `json_each(?) AS ${alias}`,
  orderedList: (alias) => `(SELECT key AS position, value FROM json_each(?)) AS ${alias}`,
  pairs: (alias, rows) =>
    `(SELECT column1 AS key, column2 AS value FROM (VALUES ${Array.from({ length: rows }, () => '(?, ?)').join(', ')})) AS ${alias}`,
  pairParamCount: (rows) => 2 * rows,
  pairParams: (params, at, pairs, from, rows) => {
    // Indexed: a run calls this a hundred times, too few for V8 to optimise a for...of.
    for (let i = from, end = from + rows; i < end; i++) {
      const pair = pairs[i]!;
      params[at++] = pair.key;
      params[at++] = pair.hash;
    }
  },
  pairsByCount: true,
  field: (alias, index) => `${alias}.value ->> ${index}`,
  probe: (table, alias, on) => `CROSS JOIN ${table} AS ${alias} ON ${on}`,
  // The left side of a LEFT JOIN is SQLite's outer loop: one key lookup per element.
  probeOrNull: (table, alias, on) => `LEFT JOIN ${table} AS ${alias} ON ${on}`,
  least: (a, b) => `min(${a}, ${b})`,
  noLimit: -1,
};

export const POSTGRES: Dialect = {
  name: 'postgres',
  list: (alias, type) =>
    type === 'text'
      ? `jsonb_array_elements_text(?::jsonb) AS ${alias}(value)`
      : `(SELECT value::bigint AS value FROM jsonb_array_elements_text(?::jsonb) AS e(value)) AS ${alias}`,
  rows: (alias) => `jsonb_array_elements(?::jsonb) AS ${alias}(value)`,
  orderedList: (alias) => `jsonb_array_elements_text(?::jsonb) WITH ORDINALITY AS ${alias}(value, position)`,
  pairs: (alias) => `jsonb_each_text(?::jsonb) AS ${alias}(key, value)`,
  pairParamCount: () => 1,
  pairParams: (params, at, pairs, from, rows) => {
    // No prototype: a key named __proto__ is a member like any other. (Object.fromEntries costs
    // ten times as much in a fresh process.)
    const members = Object.create(null) as Record<string, string>;
    for (let i = from, end = from + rows; i < end; i++) members[pairs[i]!.key] = pairs[i]!.hash;
    params[at] = JSON.stringify(members);
  },
  pairsByCount: false,
  field: (alias, index, type) =>
    type === 'text' ? `(${alias}.value ->> ${index})` : `(${alias}.value ->> ${index})::bigint`,
  probe: (table, alias, on) =>
    `CROSS JOIN LATERAL (SELECT * FROM ${table} AS ${alias} WHERE ${on} OFFSET 0) AS ${alias}`,
  probeOrNull: (table, alias, on) =>
    `LEFT JOIN LATERAL (SELECT * FROM ${table} AS ${alias} WHERE ${on} OFFSET 0) AS ${alias} ON true`,
  least: (a, b) => `least(${a}, ${b})`,
  noLimit: null,
};
