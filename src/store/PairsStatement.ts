import type { SqlDatabase, SqlStatement } from './sql/SqlDatabase.js';

/** Pairs of one statement at most: a push batch (at most 1000 items) is one. */
export const PAIRS_PER_STATEMENT = 1000;

/**
 * A statement over a list of key/value pairs, the dialect's `pairs()` FROM item. Where that item
 * is written for a row count (SQLite's multi-row VALUES), a list runs as pieces of
 * PAIRS_PER_STATEMENT, the rest as pieces of its binary digits (700: 512 + 128 + 32 + 16 + 8 + 4):
 * at most 11 row counts, so at most 11 statements are ever prepared.
 */
export class PairsStatement {
  readonly #prepared = new Map<number, SqlStatement<unknown[]>>();

  /**
   * `sql` builds the statement around its FROM item (`pairs`); the parameters it has before that
   * item are the `head` of every run, and it has none after it.
   */
  constructor(
    private readonly db: SqlDatabase,
    private readonly alias: string,
    private readonly sql: (pairs: string) => string,
  ) {}

  /** Runs over the pairs (keys distinct: PostgreSQL's upsert touches a row once a statement). */
  run(head: readonly unknown[], pairs: ReadonlyMap<string, string>): void {
    const { dialect } = this.db;
    if (pairs.size === 0) return;
    if (
      !dialect.pairsByCount ||
      (pairs.size <= PAIRS_PER_STATEMENT && (pairs.size === PAIRS_PER_STATEMENT || isPowerOfTwo(pairs.size)))
    ) {
      this.#statement(pairs.size).run(...head, ...dialect.pairParams(pairs));
      return;
    }
    const entries = [...pairs];
    for (let done = 0; done < entries.length;) {
      const left = entries.length - done;
      const size = left >= PAIRS_PER_STATEMENT ? PAIRS_PER_STATEMENT : 2 ** Math.floor(Math.log2(left));
      this.#statement(size).run(...head, ...dialect.pairParams(new Map(entries.slice(done, done + size))));
      done += size;
    }
  }

  #statement(rows: number): SqlStatement<unknown[]> {
    const count = this.db.dialect.pairsByCount ? rows : 0;
    let statement = this.#prepared.get(count);
    if (!statement) {
      statement = this.db.prepare(this.sql(this.db.dialect.pairs(this.alias, count)));
      this.#prepared.set(count, statement);
    }
    return statement;
  }
}

function isPowerOfTwo(n: number): boolean {
  return (n & (n - 1)) === 0;
}
