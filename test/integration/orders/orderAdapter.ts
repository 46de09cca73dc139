import type { Config } from '../../../src/config.js';
import type { ErpAdapter } from '../../../src/erp/ErpAdapter.js';
import { FileOrderExchange } from '../../../src/erp/file/orders/FileOrderExchange.js';
import { silentLogger } from '../../../src/logger.js';

/**
 * The file adapter's order side as a whole ErpAdapter, for the order tests: the real
 * FileOrderExchange, with the stock/price streams empty (these tests push no stock).
 */
export function orderAdapter(config: Config): ErpAdapter {
  if (config.erp.type !== 'file') throw new Error('the order tests use the file ERP');
  const orders = new FileOrderExchange(config.erp, silentLogger());
  const none = async function* () {};
  return {
    kind: 'file-orders',
    stock: none,
    prices: none,
    products: none,
    importOrder: (order) => orders.importOrder(order),
    updateOrder: (order, change) => orders.updateOrder(order, change),
    orderEvents: (checkpoint) => orders.orderEvents(checkpoint),
    recordFeedback: (result) => orders.recordFeedback(result),
    outgoingOrders: (checkpoint) => orders.outgoingOrders(checkpoint),
    recordOutgoingOrder: (source, id) => orders.recordOutgoingOrder(source, id),
    commit: async () => undefined,
    check: async () => ({ ok: true, details: 'file orders' }),
    close: async () => undefined,
  };
}
