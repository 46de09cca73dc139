import type { ErpRow } from '../../domain/records.js';
import { ErpRowMapper, unreadableRow, type ErpRowMapperOptions } from '../mapping/ErpRowMapper.js';
import type { RecordKind } from '../mapping/fields.js';
import { isRawError, type RawBatches } from './readers/RawItem.js';

/** An opened input: its name as rejects show it (e.g. `stock.csv`) and its raw rows. */
export interface OpenedInput {
  file: string;
  batches: RawBatches;
}

/**
 * Turns raw rows of one file into records or rejects (ErpRowMapper: a row without a SKU is
 * keyed `file:line`, a duplicate names the line of the first), a group per batch the reader
 * handed on: one async step per group, not per row.
 * `open` runs inside this generator (undefined: no file, no rows): every extra generator layer
 * (`yield*`) costs a step per group.
 */
export async function* toErpRows<T>(
  kind: RecordKind,
  open: () => Promise<OpenedInput | undefined>,
  options: ErpRowMapperOptions,
): AsyncIterable<ErpRow<T>[]> {
  const input = await open();
  if (!input) return;
  const { file } = input;
  const mapper = new ErpRowMapper<T>(kind, options);
  for await (const batch of input.batches) {
    const rows: ErpRow<T>[] = [];
    // Indexed, as in batches(): this generator's loop is not optimised.
    for (let at = 0; at < batch.length; at++) {
      const item = batch[at]!;
      if (isRawError(item)) {
        rows.push(unreadableRow(item.error, { file, line: item.line }));
        if (item.fatal) {
          yield rows;
          return;
        }
      } else if ('cells' in item) {
        rows.push(mapper.mapCells(item.cells, item.columns, { file, line: item.line }));
      } else {
        rows.push(mapper.map(item.fields, { file, line: item.line }));
      }
    }
    if (rows.length) yield rows;
  }
}
