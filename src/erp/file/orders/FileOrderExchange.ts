import type { FileErpConfig } from '../../../config.js';
import { ErpSyncError } from '../../../domain/errors.js';
import type {
  FeedbackResult,
  OrderChange,
  OrderEvent,
  OutgoingOrder,
  PlatformOrder,
} from '../../../domain/orders.js';
import type { Logger } from '../../../logger.js';
import type { Checkpointed, ImportResult } from '../../ErpAdapter.js';

/**
 * The order side of the file ERP adapter: outbox (orders and updates), events file,
 * feedback results and the inbox of ERP-origin orders. FileErpAdapter delegates to it.
 * Placeholder until the orders issue fills it in.
 */
export class FileOrderExchange {
  constructor(
    readonly config: FileErpConfig,
    readonly logger: Logger,
  ) {}

  async importOrder(order: PlatformOrder): Promise<ImportResult> {
    throw notYet(`importOrder ${order.id}`);
  }

  async updateOrder(order: PlatformOrder, _change: OrderChange): Promise<void> {
    throw notYet(`updateOrder ${order.id}`);
  }

  // eslint-disable-next-line require-yield
  async *orderEvents(_checkpoint: string | null): AsyncIterable<Checkpointed<OrderEvent>> {
    throw notYet('orderEvents');
  }

  async recordFeedback(result: FeedbackResult): Promise<void> {
    throw notYet(`recordFeedback ${result.eventId}`);
  }

  // eslint-disable-next-line require-yield
  async *outgoingOrders(_checkpoint: string | null): AsyncIterable<Checkpointed<OutgoingOrder>> {
    throw notYet('outgoingOrders');
  }

  async recordOutgoingOrder(sourceOrderId: string, _platformOrderId: number): Promise<void> {
    throw notYet(`recordOutgoingOrder ${sourceOrderId}`);
  }
}

function notYet(what: string): ErpSyncError {
  return new ErpSyncError('internal', `file adapter: ${what} is not implemented yet`);
}
