import { itemKeyString, type ErpRow } from '../../domain/records.js';
import { ColumnMap, type InputKind } from './columns.js';
import { isRawError, type RawItem } from './readers/RawItem.js';
import { MAPPERS, readText, type MapContext, type RecordMapper } from './recordMappers.js';

export interface ToErpRowsOptions extends MapContext {
  /** The file name as rejects show it, e.g. `stock.csv`. */
  file: string;
  /** Extra header aliases per canonical field (config `erp.columns`). */
  columns?: Record<string, readonly string[]>;
}

/**
 * Turns raw rows of one file into records or rejects. A row's key is its SKU (and variant SKU);
 * a row without one is keyed `file:line`. The second row with a key already seen in the file is
 * rejected, naming the line of the first, which is the one used.
 */
export async function* toErpRows<T>(
  kind: InputKind,
  items: AsyncIterable<RawItem>,
  options: ToErpRowsOptions,
): AsyncIterable<ErpRow<T>> {
  const columns = new ColumnMap(kind, options.columns);
  const mapper = MAPPERS[kind] as unknown as RecordMapper<T>;
  const firstLine = new Map<string, number>();
  const { file } = options;

  for await (const item of items) {
    if (isRawError(item)) {
      yield { ok: false, key: `${file}:${item.line}`, reason: item.error, source: { file, line: item.line } };
      if (item.fatal) return;
      continue;
    }
    const source = { file, line: item.line };
    const values = columns.pick(item.fields);
    const sku = readText(values, 'sku');
    if (sku === undefined) {
      yield { ok: false, key: `${file}:${item.line}`, reason: 'missing sku', source };
      continue;
    }
    const variantSku = kind === 'products' ? undefined : readText(values, 'variant_sku');
    const key = itemKeyString({ sku, variantSku });
    const seenAt = firstLine.get(key);
    if (seenAt !== undefined) {
      yield { ok: false, key, reason: `duplicate of line ${seenAt} (the first occurrence is used)`, source };
      continue;
    }
    firstLine.set(key, item.line);
    const mapped = mapper(values, sku, variantSku, options);
    if ('record' in mapped) yield { ok: true, record: mapped.record, source };
    else yield { ok: false, key, reason: mapped.reasons.join('; '), source };
  }
}
