import { join } from 'node:path';
import type { FileErpConfig } from '../fileConfigSchema.js';

/** Where the file adapter's order exchange reads and writes, under the drop folder DIR. */
export interface OrderExchangePaths {
  /** DIR/outbox/orders: one file per imported platform order. */
  ordersDir: string;
  /** DIR/outbox/updates: one file per platform-side change after import. */
  updatesDir: string;
  /** DIR/outbox/results: the platform's answers to ERP events (AWB, invoice, status). */
  resultsDir: string;
  /** DIR/inbox/orders: ERP-origin orders to create on the platform, one JSON file each. */
  inboxDir: string;
  /** DIR/inbox/orders/done: inbox files moved here once their platform order exists. */
  inboxDoneDir: string;
  /** DIR/events.csv or DIR/events.json. */
  eventsCsv: string;
  eventsJson: string;
  /** DIR/stock.* and DIR/products.*: the SKUs the ERP knows (requireKnownSkus). */
  root: string;
}

export function orderExchangePaths(config: FileErpConfig): OrderExchangePaths {
  const root = config.path;
  const outbox = config.outbox;
  const inboxDir = join(root, 'inbox', 'orders');
  return {
    ordersDir: outbox.ordersDir ?? join(root, 'outbox', 'orders'),
    updatesDir: outbox.updatesDir ?? join(root, 'outbox', 'updates'),
    resultsDir: outbox.resultsDir ?? join(root, 'outbox', 'results'),
    inboxDir,
    inboxDoneDir: join(inboxDir, 'done'),
    eventsCsv: join(root, 'events.csv'),
    eventsJson: join(root, 'events.json'),
    root,
  };
}
