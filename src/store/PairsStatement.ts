import type { KeyHash } from './sql/dialect.js';
import type { SqlDatabase, SqlStatement } from './sql/SqlDatabase.js';

/** Pairs of one statement at most: a push batch (at most 1000 items) is one. */
export const PAIRS_PER_STATEMENT = 1000;

/** A prepared statement and the array its parameters are written into at each run. */
interface Prepared {
  statement: SqlStatement<unknown[]>;
  params: unknown[];
}

/**
 * A statement over a list of key/hash pairs, the dialect's `pairs()` FROM item, in pieces of at
 * most PAIRS_PER_STATEMENT pairs. Where that item is written for a row count (SQLite's multi-row
 * VALUES), the rest of a list runs as pieces of its binary digits (700: 512 + 128 + 32 + 16 + 8 +
 * 4): at most 11 row counts, so at most 11 statements are ever prepared.
 *
 * Each statement's parameters are written into one array kept with it and spread into the call
 * as it is. The pairs through a Map, a fresh array grown by push and a spread of two arrays made
 * a fresh process's hundred batches of 1000 (a run-once) cost 0.26 s of CPU instead of 0.19 s,
 * upserts included: code run a hundred times is seldom optimised.
 */
export class PairsStatement {
  readonly #prepared = new Map<number, Prepared>();

  /**
   * `sql` builds the statement around its FROM item (`pairs`); the parameters it has before that
   * item are the `head` of every run, and it has none after it.
   */
  constructor(
    private readonly db: SqlDatabase,
    private readonly alias: string,
    private readonly sql: (pairs: string) => string,
  ) {}

  /** Runs over `pairs[from]` to `pairs[to - 1]`: see the dialect's pairs() for a key given twice. */
  run(head: readonly unknown[], pairs: readonly KeyHash[], from = 0, to = pairs.length): void {
    const { dialect } = this.db;
    for (let at = from; at < to;) {
      const left = to - at;
      const rows =
        left >= PAIRS_PER_STATEMENT || !dialect.pairsByCount
          ? Math.min(left, PAIRS_PER_STATEMENT)
          : 2 ** Math.floor(Math.log2(left));
      const { statement, params } = this.#prepare(rows, head.length);
      for (let i = 0; i < head.length; i++) params[i] = head[i];
      dialect.pairParams(params, head.length, pairs, at, rows);
      statement.run(...params);
      at += rows;
    }
  }

  #prepare(rows: number, headLength: number): Prepared {
    const { dialect } = this.db;
    const count = dialect.pairsByCount ? rows : 0;
    let prepared = this.#prepared.get(count);
    if (!prepared) {
      // Filled by push, not new Array(n): an array without holes.
      const params: unknown[] = [];
      for (let i = headLength + dialect.pairParamCount(rows); i > 0; i--) params.push(null);
      prepared = { statement: this.db.prepare(this.sql(dialect.pairs(this.alias, count))), params };
      this.#prepared.set(count, prepared);
    }
    return prepared;
  }
}
