/**
 * A separate process that runs order pipelines against a config file, so that tests can kill it
 * (SIGKILL) at any point: node --import tsx runPipelinesChild.ts CONFIG.json orders,feedback
 */
import { readFileSync } from 'node:fs';
import { createApiClient } from '../../../src/api/createApiClient.js';
import { parseConfig } from '../../../src/config.js';
import { silentLogger } from '../../../src/logger.js';
import { openStore } from '../../../src/store/index.js';
import { runErpOrders } from '../../../src/sync/erpOrders.js';
import { runFeedback } from '../../../src/sync/feedback.js';
import { runOrders } from '../../../src/sync/orders.js';
import type { Pipeline } from '../../../src/sync/types.js';
import { orderAdapter } from './orderAdapter.js';
import { migrationsWithOrders } from './orderHarness.js';

const PIPELINES: Record<string, Pipeline> = {
  orders: runOrders,
  feedback: runFeedback,
  'erp-orders': runErpOrders,
};

const [configPath, names = 'orders'] = process.argv.slice(2);
const config = parseConfig(JSON.parse(readFileSync(configPath!, 'utf8')));
const requests = { total: 0, writes: 0 };
const client = createApiClient({
  baseUrl: config.api.baseUrl,
  apiKey: config.api.apiKey,
  timeoutMs: config.api.timeoutMs,
  retries: config.api.retries,
  deadlineMs: config.api.deadlineMs,
  onResponse: () => (requests.total += 1),
});
const store = openStore(config.store.path, { migrations: migrationsWithOrders() });
const ctx = { client, erp: orderAdapter(config), store, config, logger: silentLogger(), requests };
const summaries = [];
for (const name of names.split(','))
  summaries.push(await PIPELINES[name]!(ctx, { full: false, dryRun: false }));
store.close();
await client.close();
process.stdout.write(`${JSON.stringify(summaries)}\n`);
