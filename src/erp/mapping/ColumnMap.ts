import { DEFAULT_ALIASES, FIELDS, normaliseHeader, type RecordKind } from './fields.js';

/**
 * Maps raw column names (file headers, JSON keys, SQL columns) to the canonical fields of one
 * kind of record. Configured aliases (keyed by canonical field) come first, then the defaults.
 * Unknown names map to undefined and are ignored.
 */
export class ColumnMap {
  readonly #byAlias = new Map<string, string>();
  readonly #cache = new Map<string, string | undefined>();

  constructor(kind: RecordKind, extra: Record<string, readonly string[]> = {}) {
    const fields = FIELDS[kind];
    const extraByField = new Map(
      Object.entries(extra).map(([field, aliases]) => [normaliseHeader(field), aliases]),
    );
    // Configured aliases win over defaults; within defaults, a field's own name wins over another field's alias.
    for (const field of fields) {
      for (const alias of extraByField.get(field) ?? []) this.#claim(normaliseHeader(alias), field);
    }
    for (const field of fields) this.#claim(field, field);
    for (const field of fields) {
      for (const alias of DEFAULT_ALIASES[field] ?? []) this.#claim(normaliseHeader(alias), field);
    }
  }

  #claim(alias: string, field: string): void {
    if (!this.#byAlias.has(alias)) this.#byAlias.set(alias, field);
  }

  field(header: string): string | undefined {
    if (this.#cache.has(header)) return this.#cache.get(header);
    const field = this.#byAlias.get(normaliseHeader(header));
    if (this.#cache.size < 1_000) this.#cache.set(header, field);
    return field;
  }

  /**
   * Canonical field -> raw value; the first non-empty value wins when two headers map to one field.
   * A field that is there but empty (an empty CSV cell, JSON null or "", an empty XML element or
   * attribute) maps to null, so that a mapper can tell "empty" from "not in the file" (absent).
   */
  pick(fields: Record<string, unknown>): Map<string, unknown> {
    const out = new Map<string, unknown>();
    for (const [header, value] of Object.entries(fields)) {
      const field = this.field(header);
      if (field === undefined) continue;
      if (isEmpty(value)) {
        if (!out.has(field)) out.set(field, null);
      } else if (out.get(field) === undefined || out.get(field) === null) {
        out.set(field, value);
      }
    }
    return out;
  }
}

/**
 * The same picking for rows that share their columns (a CSV file's header, a query's column
 * names): the columns are mapped once, then `of(row)` views one row without building anything
 * per row. Rows are cells by position, or (`byName`) objects keyed by the column names. The view
 * is the same object for every row: read it before asking for the next.
 */
export class CellPicker {
  /** Canonical field -> the positions (or names) of its columns, in column order. */
  readonly #at = new Map<string, (number | string)[]>();
  #row: Readonly<Record<number | string, unknown>> = {};

  constructor(columns: ColumnMap, header: readonly string[], byName = false) {
    header.forEach((name, index) => {
      const field = name === '' ? undefined : columns.field(name);
      if (field === undefined) return;
      const at = byName ? name : index;
      const positions = this.#at.get(field);
      if (positions) positions.push(at);
      else this.#at.set(field, [at]);
    });
  }

  of(row: readonly unknown[] | Readonly<Record<string, unknown>>): this {
    this.#row = row as Readonly<Record<number | string, unknown>>;
    return this;
  }

  /** As `pick(...).get(field)`: the first non-empty value, null when every column of it is empty. */
  get(field: string): unknown {
    const positions = this.#at.get(field);
    if (positions === undefined) return undefined;
    for (const at of positions) {
      const value = this.#row[at] ?? '';
      if (!isEmpty(value)) return value;
    }
    return null;
  }
}

function isEmpty(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}
