// pg-cursor ships no types; only what pgCursorRows uses.
declare module 'pg-cursor' {
  export default class Cursor<Row = Record<string, unknown>> {
    constructor(text: string, values?: unknown[]);
    read(rows: number): Promise<Row[]>;
    close(): Promise<void>;
  }
}
