import type { SqlDatabase, SqlStatement } from './sql/SqlDatabase.js';

/** Rows of one multi-row statement at most: a push batch (at most 1000 items) is one. */
export const VALUES_ROWS = 1000;

/**
 * A statement over a list of rows bound as plain parameters, `(VALUES (?, ?), ...) AS alias`
 * (columns `column1`, `column2`... on SQLite and PostgreSQL alike), prepared once per row count.
 * SQLite takes bound values at about half the CPU of the same rows as one JSON parameter read by
 * json_each (building the JSON, then parsing it again per row). A list runs as pieces of
 * VALUES_ROWS rows, the rest as pieces of its binary digits (700: 512 + 128 + 32 + 16 + 8 + 4):
 * at most 11 row counts, so at most 11 statements of a kind are ever prepared.
 */
export class ValuesStatement {
  readonly #prepared = new Map<number, SqlStatement<unknown[]>>();

  /**
   * `sql` builds the statement around its FROM item (`values`); the parameters it has before that
   * item are the `head` of every run, those after it none.
   */
  constructor(
    private readonly db: SqlDatabase,
    private readonly columns: number,
    private readonly alias: string,
    private readonly sql: (values: string) => string,
  ) {}

  /** Runs over `values`, the rows flattened (`columns` values a row), each piece after `head`. */
  run(head: readonly unknown[], values: readonly unknown[]): void {
    const rows = values.length / this.columns;
    for (let done = 0; done < rows;) {
      const left = rows - done;
      const size = left >= VALUES_ROWS ? VALUES_ROWS : 2 ** Math.floor(Math.log2(left));
      const part = size === rows ? values : values.slice(done * this.columns, (done + size) * this.columns);
      this.#statement(size).run(...head, ...part);
      done += size;
    }
  }

  #statement(rows: number): SqlStatement<unknown[]> {
    let statement = this.#prepared.get(rows);
    if (!statement) {
      const row = `(${Array.from({ length: this.columns }, () => '?').join(', ')})`;
      const values = `(VALUES ${Array.from({ length: rows }, () => row).join(', ')}) AS ${this.alias}`;
      statement = this.db.prepare(this.sql(values));
      this.#prepared.set(rows, statement);
    }
    return statement;
  }
}
