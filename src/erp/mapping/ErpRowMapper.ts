import { describeSource, itemKeyString, type ErpRow, type RecordSource } from '../../domain/records.js';
import { CellPicker, ColumnMap } from './ColumnMap.js';
import type { RecordKind } from './fields.js';
import { FirstSeen } from './FirstSeen.js';
import { MAPPERS, readText, type MapContext, type Picked, type RecordMapper } from './recordMappers.js';

export interface ErpRowMapperOptions extends MapContext {
  /** Extra column aliases per canonical field (e.g. the file adapter's `erp.columns`). */
  columns?: Record<string, readonly string[]>;
}

/**
 * One read's rows (column name -> raw value) to records or rejects, the same way for every
 * adapter: columns mapped to canonical fields, a row keyed by its SKU (and variant SKU), or by
 * its source when it has none, and the second row with a key already seen in this read rejected
 * as a duplicate naming the first, which is the one used. One instance per read.
 */
export class ErpRowMapper<T> {
  private readonly variants: boolean;
  private readonly columns: ColumnMap;
  private readonly mapper: RecordMapper<T>;
  private readonly options: ErpRowMapperOptions;
  /** Where each key was first seen: its line (kept compact: a million rows may pass). */
  private readonly first = new FirstSeen();
  #picker: { columns: readonly string[]; picker: CellPicker } | undefined;

  constructor(kind: RecordKind, options: ErpRowMapperOptions) {
    this.variants = kind !== 'products';
    this.columns = new ColumnMap(kind, options.columns);
    this.mapper = MAPPERS[kind] as unknown as RecordMapper<T>;
    this.options = options;
  }

  /** A raw row (column name -> value) to a record or a reject. */
  map(fields: Record<string, unknown>, source: RecordSource): ErpRow<T> {
    return this.#mapPicked(this.columns.pick(fields), source);
  }

  /** A row by position (`cells` under the file's `columns`); the columns are mapped once per file. */
  mapCells(cells: readonly string[], columns: readonly string[], source: RecordSource): ErpRow<T> {
    return this.#mapPicked(this.#pickerFor(columns, false).of(cells), source);
  }

  /** A row of a query whose rows all have these `columns` (mapped once per query). */
  mapNamed(
    row: Readonly<Record<string, unknown>>,
    columns: readonly string[],
    source: RecordSource,
  ): ErpRow<T> {
    return this.#mapPicked(this.#pickerFor(columns, true).of(row), source);
  }

  #pickerFor(columns: readonly string[], byName: boolean): CellPicker {
    if (this.#picker?.columns !== columns)
      this.#picker = { columns, picker: new CellPicker(this.columns, columns, byName) };
    return this.#picker.picker;
  }

  #mapPicked(values: Picked, source: RecordSource): ErpRow<T> {
    const sku = readText(values, 'sku');
    if (sku === undefined) return { ok: false, key: describeSource(source), reason: 'missing sku', source };
    const variantSku = this.variants ? readText(values, 'variant_sku') : undefined;
    const key = itemKeyString({ sku, variantSku });
    const seenAt = this.first.firstOrAdd(key, source.line ?? describeSource(source));
    if (seenAt !== undefined) {
      const first = typeof seenAt === 'number' ? `line ${seenAt}` : seenAt;
      return { ok: false, key, reason: `duplicate of ${first} (the first occurrence is used)`, source };
    }
    const mapped = this.mapper(values, sku, variantSku, this.options);
    if ('record' in mapped) return { ok: true, record: mapped.record, source };
    return { ok: false, key, reason: mapped.reasons.join('; '), source };
  }
}

/** A row the source could not even give as columns (broken quoting, malformed file). */
export function unreadableRow<T>(reason: string, source: RecordSource): ErpRow<T> {
  return { ok: false, key: describeSource(source), reason, source };
}
