import { stat as statCallback, type Stats } from 'node:fs';
import { promisify } from 'node:util';
import type {
  FeedbackResult,
  OrderChange,
  OrderEvent,
  OutgoingOrder,
  PlatformOrder,
} from '../../domain/orders.js';
import type { PriceRecord, ProductRecord, StockRecord } from '../../domain/records.js';
import { ErpSyncError } from '../../domain/errors.js';
import type { Logger } from '../../logger.js';
import type { AdapterCheck, Checkpointed, ErpAdapter, ImportResult } from '../ErpAdapter.js';
import type { ErpCapabilities } from '../ErpCapabilities.js';
import type { ErpOrderLocation } from '../ErpOrderLocation.js';
import type { ErpChange, ErpWatch } from '../ErpWatch.js';
import { asReadReceipt, erpReadGroups, type ErpRead, type ReadReceipt } from '../ErpRead.js';
import type { RecordKind } from '../mapping/fields.js';
import { archiveFile } from './archiveFile.js';
import { asAccessError, isMissing } from './asAccessError.js';
import { FileAccessError } from './FileAccessError.js';
import type { FileErpConfig } from './fileConfigSchema.js';
import { locateInput } from './locateInput.js';
import { FileOrderExchange } from './orders/FileOrderExchange.js';
import { toErpRows, type OpenedInput } from './toErpRows.js';
import { waitUntilStable } from './waitUntilStable.js';

/** A read's receipt: the file read, so that commit() archives that file and not one renamed over it since. */
interface ReadFile {
  kind: RecordKind;
  path: string;
  name: string;
  dev: number;
  ino: number;
  mtimeMs: number;
  size: number;
}

/**
 * The ERP as a drop folder: DIR/stock.*, DIR/prices.*, DIR/products.* in CSV, JSON, NDJSON or XML.
 * Rows are streamed; a bad row becomes a reject and the others go on. The order side (outbox,
 * events, inbox) lives in FileOrderExchange.
 */
/** A file write per import: the disk takes many at once, the import mostly waits (bench/RESULTS.md). */
export const FILE_IMPORTS_AT_ONCE = 16;

/** How long a drop folder found is taken as there for the order writes (ms). */
const FOLDER_SEEN_MS = 1000;

// node:fs's callback form, promisified, as in locateInput.ts: `erp-sync check` loads no node:fs/promises.
const stat = promisify(statCallback);

export class FileErpAdapter implements ErpAdapter {
  readonly kind = 'file';
  readonly capabilities: ErpCapabilities;
  /** Made at the first order call: `erp-sync check` and the stock and price runs make none. */
  #exchange: FileOrderExchange | undefined;
  /** When #requireFolder last found the drop folder (ms). */
  #folderSeenAt = -Infinity;

  constructor(
    readonly config: FileErpConfig,
    private readonly logger: Logger,
  ) {
    // With archive on, each file is only the drop since the last run: a SKU not in it is unchanged.
    const mode = config.archive ? 'delta' : 'snapshot';
    this.capabilities = {
      reads: { stock: mode, prices: mode, products: mode },
      // Each drop is all there is: no full read exists beyond the ERP's next export.
      fullReadEveryMinutes: { stock: 0, prices: 0 },
      stockSubtractsImportedOrders: config.stockSubtractsImportedOrders,
      orders: { import: true, events: true, outgoing: true },
      importsAtOnce: FILE_IMPORTS_AT_ONCE,
    };
  }

  /** Nothing to connect to: the drop folder is checked where it is used. */
  async open(): Promise<void> {}

  stock(): ErpRead<StockRecord> {
    return this.#rows<StockRecord>('stock');
  }

  prices(): ErpRead<PriceRecord> {
    return this.#rows<PriceRecord>('prices');
  }

  products(): ErpRead<ProductRecord> {
    return this.#rows<ProductRecord>('products');
  }

  #rows<T>(kind: RecordKind): ErpRead<T> {
    return erpReadGroups<T>((setReceipt) =>
      toErpRows<T>(kind, () => this.#open(kind, setReceipt), {
        decimalComma: this.config.decimalComma,
        columns: this.config.columns,
      }),
    );
  }

  async #open(
    kind: RecordKind,
    setReceipt: (receipt: ReadReceipt) => void,
  ): Promise<OpenedInput | undefined> {
    const input = await locateInput(this.config.path, kind);
    if (!input) {
      this.logger.debug({ kind, dir: this.config.path }, 'no input file: nothing to read');
      return undefined;
    }
    if (input.ignored.length) {
      this.logger.warn(
        { used: input.name, ignored: input.ignored },
        `several ${kind} files: using ${input.name}`,
      );
    }
    try {
      await waitUntilStable(input.path, {
        stableMs: this.config.stableMs,
        timeoutMs: this.config.stableTimeoutMs,
      });
    } catch (error) {
      if (isMissing(error)) {
        this.logger.info({ file: input.name }, 'input file gone before it could be read: nothing to read');
        return undefined;
      }
      throw asAccessError(error, input.path);
    }
    const remember = (stats: Stats) => {
      // Nothing to finish when files stay where they are.
      if (!this.config.archive) return;
      const read: ReadFile = {
        kind,
        path: input.path,
        name: input.name,
        dev: stats.dev,
        ino: stats.ino,
        mtimeMs: stats.mtimeMs,
        size: stats.size,
      };
      setReceipt(asReadReceipt(JSON.stringify(read)));
    };
    // Loaded here: the readers (csv-parse, saxes, the decoders) are for a read; `check` never loads them.
    const { readInput } = await import('./openInput.js');
    return {
      file: input.name,
      batches: readInput(
        input,
        { delimiter: this.config.delimiter, encoding: this.config.encoding },
        remember,
      ),
    };
  }

  /** Reports completed drops in the folder (see watchDropFolder). */
  async watch(onChange: (change: ErpChange) => void): Promise<ErpWatch> {
    // Loaded here: only the daemon watches, a run or a check never loads chokidar.
    const { watchDropFolder } = await import('./watchDropFolder.js');
    return watchDropFolder(this.config, onChange, this.logger);
  }

  /** After a successful run: moves the file read into DIR/archive/ (a receipt exists only with `archive` on). */
  async commit(receipt: ReadReceipt): Promise<void> {
    const read = parseReceipt(receipt);
    let current: Stats;
    try {
      current = await stat(read.path);
    } catch {
      this.logger.info({ file: read.name }, 'input file gone before archiving: nothing to archive');
      return;
    }
    if (
      current.dev !== read.dev ||
      current.ino !== read.ino ||
      current.mtimeMs !== read.mtimeMs ||
      current.size !== read.size
    ) {
      this.logger.info(
        { file: read.name },
        'input file replaced since it was read: left in place for the next run',
      );
      return;
    }
    const target = await archiveFile(this.config.path, read.path, read.name);
    this.logger.info({ file: read.name, archivedAs: target }, 'input file archived');
  }

  async check(): Promise<AdapterCheck> {
    const lines: string[] = [];
    let ok = true;
    for (const kind of ['stock', 'prices', 'products'] as const) {
      try {
        const input = await locateInput(this.config.path, kind);
        if (!input) {
          lines.push(`${kind}: no file (${kind}.csv|json|ndjson|xml), nothing will be read`);
          continue;
        }
        const stats = await stat(input.path);
        const ignored = input.ignored.length ? `; ignored: ${input.ignored.join(', ')}` : '';
        lines.push(
          `${kind}: ${input.name} (${stats.size} bytes, modified ${stats.mtime.toISOString()})${ignored}`,
        );
      } catch (error) {
        ok = false;
        lines.push(`${kind}: ${(error as Error).message}`);
        break;
      }
    }
    return { ok, details: `drop folder ${this.config.path}\n${lines.join('\n')}` };
  }

  async close(): Promise<void> {}

  async importOrder(order: PlatformOrder): Promise<ImportResult> {
    await this.#requireFolder();
    return this.#orders.importOrder(order);
  }

  /** Read only: the outbox file of an earlier import (see OrderOutbox.locateOrder). */
  async locateOrder(platformOrderId: number): Promise<ErpOrderLocation | null> {
    // A missing drop folder is an ERP that cannot be read, not an ERP without the order.
    await this.#requireFolder();
    return this.#orders.locateOrder(platformOrderId);
  }

  async updateOrder(order: PlatformOrder, change: OrderChange): Promise<void> {
    await this.#requireFolder();
    return this.#orders.updateOrder(order, change);
  }

  /**
   * The outbox folders are created on demand; the drop folder itself must exist. Otherwise a
   * mistyped or unmounted `erp.path` would collect orders in a new folder no ERP reads, and the
   * stock and prices runs would then read it as an empty ERP. Found at most once a second
   * (FOLDER_SEEN_MS) for the imports and changes: a stat per order was an eighth of the file work
   * of an import; a folder the outbox writer would have to make is always looked at afresh
   * (`fresh`, called by the writer before it makes one).
   */
  async #requireFolder(fresh = false): Promise<void> {
    if (!fresh && Date.now() - this.#folderSeenAt < FOLDER_SEEN_MS) return;
    this.#folderSeenAt = -Infinity;
    let stats: Stats;
    try {
      stats = await stat(this.config.path);
    } catch (error) {
      throw new FileAccessError(
        `the ERP drop folder ${this.config.path} cannot be read: ${(error as Error).message}`,
        { dir: this.config.path },
        { cause: error },
      );
    }
    if (!stats.isDirectory()) {
      throw new FileAccessError(`the ERP drop folder ${this.config.path} is not a folder`, {
        dir: this.config.path,
      });
    }
    this.#folderSeenAt = Date.now();
  }

  get #orders(): FileOrderExchange {
    return (this.#exchange ??= new FileOrderExchange(this.config, this.logger, () =>
      this.#requireFolder(true),
    ));
  }

  orderEvents(checkpoint: string | null): AsyncIterable<Checkpointed<OrderEvent>> {
    return this.#orders.orderEvents(checkpoint);
  }

  recordFeedback(result: FeedbackResult): Promise<void> {
    return this.#orders.recordFeedback(result);
  }

  outgoingOrders(checkpoint: string | null): AsyncIterable<Checkpointed<OutgoingOrder>> {
    return this.#orders.outgoingOrders(checkpoint);
  }

  recordOutgoingOrder(order: OutgoingOrder, platformOrderId: number): Promise<void> {
    return this.#orders.recordOutgoingOrder(order, platformOrderId);
  }
}

function parseReceipt(receipt: ReadReceipt): ReadFile {
  let read: Partial<ReadFile> | undefined;
  try {
    read = JSON.parse(receipt) as Partial<ReadFile>;
  } catch {
    read = undefined;
  }
  if (typeof read?.path !== 'string' || typeof read.name !== 'string' || typeof read.ino !== 'number') {
    throw new ErpSyncError('internal', `not a receipt of the file adapter: ${receipt.slice(0, 200)}`);
  }
  return read as ReadFile;
}
