import { mkdir, rename } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { FileErpConfig } from '../fileConfigSchema.js';
import type {
  FeedbackResult,
  OrderChange,
  OrderEvent,
  OutgoingOrder,
  PlatformOrder,
} from '../../../domain/orders.js';
import type { Logger } from '../../../logger.js';
import type { Checkpointed, ImportResult } from '../../ErpAdapter.js';
import type { ErpOrderLocation } from '../../ErpOrderLocation.js';
import { asAccessError } from '../asAccessError.js';
import { knownSkusSignature, readKnownSkus } from './knownSkus.js';
import { OrderRefusedError } from '../../OrderRefusedError.js';
import { orderExchangePaths, type OrderExchangePaths } from './orderExchangePaths.js';
import { OrderOutbox } from './OrderOutbox.js';
import { readEventsFile } from './readEventsFile.js';
import { readInbox } from './readInbox.js';

/**
 * The order side of the file ERP adapter: outbox (orders and updates), events file,
 * feedback results and the inbox of ERP-origin orders. FileErpAdapter delegates to it.
 */
export class FileOrderExchange {
  readonly paths: OrderExchangePaths;
  readonly #outbox: OrderOutbox;
  /** The ERP's SKU list, read again only when its files change (a poll imports many orders at once). */
  #knownSkus: { signature: string; skus: Promise<Set<string> | null> } | null = null;

  constructor(
    readonly config: FileErpConfig,
    readonly logger: Logger,
    /** Before a missing outbox folder is made: throws when the drop folder is not there. */
    requireDropFolder?: () => Promise<void>,
  ) {
    this.paths = orderExchangePaths(config);
    this.#outbox = new OrderOutbox(this.paths, config.outbox.format, undefined, undefined, requireDropFolder);
  }

  async importOrder(order: PlatformOrder): Promise<ImportResult> {
    if (this.config.outbox.requireKnownSkus) await this.#checkSkus(order);
    // A full disk or a folder without permission is an ERP that is unavailable: retried later.
    return this.#outbox.importOrder(order).catch((error: unknown) => {
      throw asAccessError(error, this.paths.ordersDir);
    });
  }

  async locateOrder(orderId: number): Promise<ErpOrderLocation | null> {
    return this.#outbox.locateOrder(orderId).catch((error: unknown) => {
      throw asAccessError(error, this.paths.ordersDir);
    });
  }

  async updateOrder(order: PlatformOrder, change: OrderChange): Promise<void> {
    await this.#outbox.updateOrder(order, change).catch((error: unknown) => {
      throw asAccessError(error, this.paths.updatesDir);
    });
  }

  orderEvents(checkpoint: string | null): AsyncIterable<Checkpointed<OrderEvent>> {
    return readEventsFile(
      { csv: this.paths.eventsCsv, json: this.paths.eventsJson },
      checkpoint,
      this.config.decimalComma,
    );
  }

  async recordFeedback(result: FeedbackResult): Promise<void> {
    await this.#outbox.recordFeedback(result).catch((error: unknown) => {
      throw asAccessError(error, this.paths.resultsDir);
    });
  }

  /**
   * Every file still in the inbox, whatever the checkpoint: the folder is the queue (a file
   * leaves it once its order is recorded), so a file fixed after a reject is read again.
   */
  async *outgoingOrders(_checkpoint: string | null): AsyncIterable<Checkpointed<OutgoingOrder>> {
    for await (const item of readInbox(this.paths.inboxDir)) {
      yield { row: item.row, checkpoint: item.checkpoint };
    }
  }

  /** Writes the result file and moves the order's inbox file (its `source.file`) to done/. */
  async recordOutgoingOrder(order: OutgoingOrder, platformOrderId: number): Promise<void> {
    await this.#outbox.recordOutgoingOrder(order.sourceOrderId, platformOrderId);
    if (!order.source?.file) return;
    const name = basename(order.source.file);
    await mkdir(this.paths.inboxDoneDir, { recursive: true });
    await rename(join(this.paths.inboxDir, name), join(this.paths.inboxDoneDir, name)).catch(
      (error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw error;
      },
    );
  }

  async #checkSkus(order: PlatformOrder): Promise<void> {
    const signature = await knownSkusSignature(this.paths.root);
    if (this.#knownSkus?.signature !== signature) {
      this.#knownSkus = { signature, skus: readKnownSkus(this.paths.root) };
    }
    const known = await this.#knownSkus.skus;
    if (!known) return;
    const unknown = order.items
      .filter((line) => !line.sku || !known.has(line.sku))
      .map((l) => l.sku ?? '(no SKU)');
    if (unknown.length > 0) {
      throw new OrderRefusedError(`unknown SKU in the ERP: ${[...new Set(unknown)].join(', ')}`, {
        orderId: order.id,
        skus: unknown,
      });
    }
  }
}
