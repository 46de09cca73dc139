import type { BulkPriceItem, BulkStockItem } from '../api/inputs.js';
import type { RecordSource } from '../domain/records.js';
import type { FingerprintPipeline } from '../store/index.js';
import type { PushBatch, PushItem } from '../sync/push/pushBatch.js';
import { PushPayloadError } from './PushPayloadError.js';

/**
 * A `PushBatch` as a push job carries it through Redis: one array per field instead of an object
 * per item, the source file named once. A third of the bytes of the object-per-item form, and
 * BullMQ's JSON.stringify on enqueue and JSON.parse on every read of the job cost a fraction:
 * those were the most CPU a 100k-item push spent outside the store.
 */
export interface PackedBatch<W = BulkStockItem | BulkPriceItem> {
  /** The layout: a batch without it is the object-per-item `PushBatch` of a version before this one. */
  packed: 1;
  pipeline: FingerprintPipeline;
  generation: number;
  keys: string[];
  /** The product SKU, or null when it is the key itself (no variant). */
  skus: (string | null)[];
  hashes: string[];
  wires: W[];
  /** The distinct source files of the batch (usually one). */
  files: string[];
  /** Each item's source file, an index into `files`, or -1 for none. */
  fileOf: number[];
  lines: (number | null)[];
  /** Each item's source row, only when some item has one. */
  rows?: (string | null)[];
}

/** Packs a scan's batch for its push job. */
export function packBatch<W>(batch: PushBatch<W>): PackedBatch<W> {
  const n = batch.items.length;
  const files: string[] = [];
  const packed: PackedBatch<W> = {
    packed: 1,
    pipeline: batch.pipeline,
    generation: batch.generation,
    keys: new Array<string>(n),
    skus: new Array<string | null>(n),
    hashes: new Array<string>(n),
    wires: new Array<W>(n),
    files,
    fileOf: new Array<number>(n),
    lines: new Array<number | null>(n),
  };
  let rows: (string | null)[] | undefined;
  for (let i = 0; i < n; i++) {
    const item = batch.items[i]!;
    packed.keys[i] = item.key;
    packed.skus[i] = item.sku === item.key ? null : item.sku;
    packed.hashes[i] = item.hash;
    packed.wires[i] = item.wire;
    const file = item.source?.file;
    let at = -1;
    if (file !== undefined) {
      at = files.indexOf(file);
      if (at < 0) at = files.push(file) - 1;
    }
    packed.fileOf[i] = at;
    packed.lines[i] = item.source?.line ?? null;
    if (item.source?.row !== undefined) {
      rows ??= new Array<string | null>(n).fill(null);
      rows[i] = item.source.row;
    }
  }
  if (rows) packed.rows = rows;
  return packed;
}

const isArrayOf = (value: unknown, length: number): value is unknown[] =>
  Array.isArray(value) && value.length === length;

function unpack<W>(packed: Partial<PackedBatch<W>>): PushBatch<W> {
  const { keys } = packed;
  if (!Array.isArray(keys)) throw new PushPayloadError('its packed batch has no keys');
  const n = keys.length;
  const columns = ['skus', 'hashes', 'wires', 'fileOf', 'lines'] as const;
  for (const column of columns)
    if (!isArrayOf(packed[column], n))
      throw new PushPayloadError(`its packed batch's ${column} do not match its ${n} keys`);
  if (packed.rows !== undefined && !isArrayOf(packed.rows, n))
    throw new PushPayloadError(`its packed batch's rows do not match its ${n} keys`);
  const { skus, hashes, wires, fileOf, lines, rows } = packed as PackedBatch<W>;
  const files = Array.isArray(packed.files) ? packed.files : [];
  const items = new Array<PushItem<W>>(n);
  for (let i = 0; i < n; i++) {
    const key = keys[i]!;
    const file = files[fileOf[i]!];
    const line = lines[i];
    const row = rows?.[i];
    let source: RecordSource | undefined;
    if (file !== undefined || line != null || row != null) {
      source = {};
      if (file !== undefined) source.file = file;
      if (line != null) source.line = line;
      if (row != null) source.row = row;
    }
    // One literal of one shape for every item (as the scan builds them).
    items[i] = { key, sku: skus[i] ?? key, source, hash: hashes[i]!, wire: wires[i]! };
  }
  return { pipeline: packed.pipeline!, generation: packed.generation!, items };
}

/**
 * The batch of a push job's data: packed (this version), or a `PushBatch` with an object per item,
 * as a version before this one queued it and may have left it in Redis across an upgrade.
 */
export function readPushBatch<W = BulkStockItem | BulkPriceItem>(
  batch: PackedBatch<W> | PushBatch<W> | undefined,
): PushBatch<W> {
  if (!batch || typeof batch !== 'object') throw new PushPayloadError('it carries no batch');
  if (batch.pipeline !== 'stock' && batch.pipeline !== 'prices')
    throw new PushPayloadError(`its batch names no push pipeline (${String(batch.pipeline)})`);
  if (typeof batch.generation !== 'number')
    throw new PushPayloadError(`its ${batch.pipeline} batch has no generation`);
  if ('packed' in batch) return unpack(batch);
  if (!Array.isArray(batch.items)) throw new PushPayloadError(`its ${batch.pipeline} batch has no items`);
  return batch;
}
