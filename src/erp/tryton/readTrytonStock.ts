import type { ErpRow, StockRecord } from '../../domain/records.js';
import type { TrytonClient } from './TrytonClient.js';
import { changedAt, latest, minusSeconds, searchReadAll, wholeUnits } from './trytonRows.js';

export interface StockReadSettings {
  warehouseIds: number[];
  field: 'quantity' | 'forecast_quantity';
  overlapSeconds: number;
}

interface ProductStock {
  id: number;
  code: string | null;
  quantity?: number;
  forecast_quantity?: number;
}

interface MoveStamp {
  id: number;
  product: number;
  create_date: unknown;
  write_date: unknown;
}

const CHUNK = 200;

/**
 * Stock per SKU (product.product.code) summed over the configured warehouses. With `since`,
 * only products with a stock move created or written since then (minus the overlap window:
 * Tryton stamps a row with its transaction's start) are read, each once; moves never touch the
 * product's own write_date. `done` receives the checkpoint for the next read: the latest move
 * timestamp seen (Tryton's clock, never ours). Rows come a page at a time.
 */
export async function* readTrytonStock(
  rpc: TrytonClient,
  settings: StockReadSettings,
  since: Date | null,
  done: (next: Date | null) => void,
): AsyncGenerator<ErpRow<StockRecord>[]> {
  let next: Date | null = since;
  let productIds: number[] | null = null;
  if (since) {
    const from = minusSeconds(since, settings.overlapSeconds);
    const ids = new Set<number>();
    const domain = ['OR', ['create_date', '>=', from], ['write_date', '>=', from]];
    for await (const page of searchReadAll<MoveStamp>(
      rpc,
      'stock.move',
      [domain],
      ['product', 'create_date', 'write_date'],
    )) {
      for (const move of page) {
        ids.add(move.product);
        next = latest(next, changedAt(move));
      }
    }
    productIds = [...ids];
  } else {
    next = await latestMoveStamp(rpc);
  }
  const context = { locations: settings.warehouseIds, with_childs: true };
  const fields = ['code', settings.field];
  const goods = [
    ['type', '=', 'goods'],
    ['code', '!=', null],
  ];
  const pages = productIds
    ? chunks(productIds, CHUNK).map((chunk) => [...goods, ['id', 'in', chunk]])
    : [goods];
  for (const domain of pages) {
    for await (const page of searchReadAll<ProductStock>(rpc, 'product.product', domain, fields, context)) {
      yield page.map((product) => toStockRow(product, settings.field));
    }
  }
  done(next);
}

function toStockRow(product: ProductStock, field: StockReadSettings['field']): ErpRow<StockRecord> {
  const sku = (product.code ?? '').trim();
  const source = { row: `product.product ${product.id}` };
  const quantity = wholeUnits(product[field]);
  if (quantity === null) return { ok: false, key: sku, reason: `${field} is not a number`, source };
  return { ok: true, record: { sku, quantity }, source };
}

async function latestMoveStamp(rpc: TrytonClient): Promise<Date | null> {
  let found: Date | null = null;
  for (const field of ['create_date', 'write_date']) {
    const rows = await rpc.model<MoveStamp[]>('stock.move', 'search_read', [
      [[field, '!=', null]],
      0,
      1,
      [[field, 'DESC']],
      ['create_date', 'write_date'],
    ]);
    for (const row of rows) found = latest(found, changedAt(row));
  }
  return found;
}

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
