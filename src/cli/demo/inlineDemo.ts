import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createApiClient } from '../../api/createApiClient.js';
import type { Sandbox } from '../../sandbox/index.js';
import { openStore } from '../../store/index.js';
import { runOnce } from '../runOnceCommand.js';
import { formatRejects } from '../storeCommands.js';
import type { DemoOptions } from './DemoOptions.js';
import { openDemoWorld } from './openDemoWorld.js';
import { say } from './say.js';
import type { DemoJanitor } from './startDemoJanitor.js';
import { untilAborted } from './untilAborted.js';

/**
 * The demo without Redis: every pipeline through the real `run-once` path (configuration file +
 * environment), one after the other, narrating what happens.
 */
export async function runInlineDemo(
  options: DemoOptions,
  signal: AbortSignal,
  janitor?: DemoJanitor,
): Promise<number> {
  const world = await openDemoWorld({ dir: options.dir, keep: options.keep, janitor });
  const { sandbox, erpDir, configFile, storePath } = world;
  try {
    say(`Sandbox (API v2) at ${sandbox.url}; ERP drop folder ${erpDir}`);
    say('1. First run: catalog, orders, stock, prices, feedback, erp-orders');
    let code = await runOnce({ configFile, full: false, dryRun: false, json: false });
    if (code === 2) return code;

    say('2. Second run of stock and prices: nothing changed in the ERP, so no write request');
    code = await runOnce({ configFile, only: ['stock', 'prices'], full: false, dryRun: false, json: false });

    const orderId = firstImportedOrder(erpDir);
    if (orderId !== undefined) {
      say(`3. The ERP ships order ${orderId}: events.csv says processing, AWB, invoice, shipped`);
      writeFileSync(
        join(erpDir, 'events.csv'),
        [
          'order_id,event,courier,weight,parcels,note',
          `${orderId},processing,,,,picked in warehouse`,
          `${orderId},awb,fan,1.5,1,`,
          `${orderId},invoiced,,,,`,
          `${orderId},shipped,,,,handed to the courier`,
          '',
        ].join('\n'),
      );
      code = await runOnce({ configFile, only: ['feedback'], full: false, dryRun: false, json: false });
      await showOrder(sandbox, orderId);
    }

    say('4. What was refused, and why (erp-sync rejects)');
    const store = openStore(storePath);
    try {
      process.stdout.write(formatRejects(store, { all: false, json: false }));
    } finally {
      store.close();
    }
    say(
      world.removesWorkDir
        ? 'Done. The work folder is removed with the sandbox; to look around afterwards, run ' +
            '`erp-sync demo --dir ./erp-sync-demo` and then `erp-sync status --config ./erp-sync-demo/erp-sync.yaml`'
        : `Done. Try: erp-sync status --config ${configFile}`,
    );
    if (options.keep) {
      say(
        `The sandbox keeps running (Ctrl-C to stop): CMS_BASE_URL=${sandbox.url}, ` +
          'CMS_API_KEY the primary demo key (README, Sandbox reference)',
      );
      await untilAborted(signal, options.forSeconds);
    }
    return code;
  } finally {
    await world.close();
  }
}

function firstImportedOrder(erpDir: string): number | undefined {
  const ids = readdirSync(join(erpDir, 'outbox', 'orders'), { withFileTypes: true })
    .filter((entry) => entry.isFile() && /^\d+\.(json|xml)$/.test(entry.name))
    .map((entry) => Number.parseInt(entry.name, 10))
    .sort((a, b) => a - b);
  return ids[0];
}

async function showOrder(sandbox: Sandbox, orderId: number): Promise<void> {
  const client = createApiClient({ baseUrl: sandbox.url, apiKey: sandbox.keys.primary });
  try {
    const order = await client.orders.get(orderId);
    const awb = order.awb ? `${order.awb.number} (${order.awb.courier})` : 'none';
    const invoice = order.invoice ? `${order.invoice.series}-${order.invoice.number}` : 'none';
    process.stdout.write(
      `platform now says: order ${orderId} ${order.status}, AWB ${awb}, invoice ${invoice}\n`,
    );
  } finally {
    await client.close();
  }
}
