import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { createApiClient } from '../api/createApiClient.js';
import { writeConfigFile } from '../config.js';
import type { Sandbox } from '../sandbox/index.js';
import { openStore } from '../store/index.js';
import { formatRejects } from './storeCommands.js';
import { runOnce } from './runOnceCommand.js';

const SAMPLE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../config/sample');

interface DemoOptions {
  keep: boolean;
  dir?: string;
}

/**
 * `erp-sync demo`: the whole product in one command, with nothing to install or configure.
 * Starts the sandbox, copies the sample ERP drop folder, and runs every pipeline through the
 * real `run-once` path (configuration file + environment), narrating what happens.
 */
export async function runDemo(options: DemoOptions): Promise<number> {
  const workDir = options.dir ? resolve(options.dir) : mkdtempSync(join(tmpdir(), 'erp-sync-demo-'));
  const erpDir = join(workDir, 'erp');
  mkdirSync(erpDir, { recursive: true });
  for (const file of readdirSync(SAMPLE_DIR).filter((name) => /\.(csv|json|xml)$/.test(name))) {
    cpSync(join(SAMPLE_DIR, file), join(erpDir, file));
  }
  writeErpOriginOrder(erpDir);
  const configFile = join(workDir, 'erp-sync.yaml');
  const storePath = join(workDir, 'erp-sync.db');
  // Every demo starts a new sandbox (a new account at a new address): a store kept in --dir from
  // an earlier demo belongs to that one and would be refused, so each run starts with a new store.
  for (const file of [storePath, `${storePath}-wal`, `${storePath}-shm`]) rmSync(file, { force: true });
  writeConfigFile(configFile, {
    erp: { type: 'file', path: erpDir },
    store: { path: storePath },
    log: { level: 'warn' },
  });

  // Loaded here, not at start-up: every other command would pay for fastify and the seed.
  const { startSandbox } = await import('../sandbox/index.js');
  const sandbox = await startSandbox({ seed: 'demo', logLevel: 'warn' });
  process.env.CMS_BASE_URL = sandbox.url;
  process.env.CMS_API_KEY = sandbox.keys.primary;
  // The demo's own store, whatever a deployment's environment says (the image sets ERP_SYNC_* too).
  process.env.ERP_SYNC_STORE = storePath;
  const say = (text: string): void => void process.stdout.write(`\n== ${text}\n`);
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
    const removed = !options.dir && !options.keep;
    say(
      removed
        ? 'Done. The work folder is removed with the sandbox; to look around afterwards, run ' +
            '`erp-sync demo --dir ./erp-sync-demo` and then `erp-sync status --config ./erp-sync-demo/erp-sync.yaml`'
        : `Done. Try: erp-sync status --config ${configFile}`,
    );
    if (options.keep) {
      say(
        `The sandbox keeps running (Ctrl-C to stop): CMS_BASE_URL=${sandbox.url} CMS_API_KEY=${sandbox.keys.primary}`,
      );
      await new Promise<void>((done) => process.once('SIGINT', () => done()));
    }
    return code;
  } finally {
    await sandbox.close();
    if (!options.dir && !options.keep) rmSync(workDir, { recursive: true, force: true });
  }
}

function writeErpOriginOrder(erpDir: string): void {
  const inbox = join(erpDir, 'inbox', 'orders');
  mkdirSync(inbox, { recursive: true });
  const order = {
    source_order_id: 'ERP-B2B-1001',
    customer: { name: 'Demo Distribution SRL', email: 'orders@demo-distribution.example', cui: 'RO1234567' },
    items: [
      { sku: 'DEMO-0002', quantity: 3 },
      { sku: 'DEMO-0003', quantity: 1 },
    ],
    payment_status: 'unpaid',
  };
  writeFileSync(join(inbox, 'ERP-B2B-1001.json'), `${JSON.stringify(order, null, 2)}\n`);
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

export function registerDemoCommand(program: Command): void {
  program
    .command('demo')
    .description('run the sandbox and every pipeline against a sample ERP folder, narrating what happens')
    .option('--keep', 'keep the sandbox running afterwards (and keep the work folder)', false)
    .option('--dir <folder>', 'work folder to use and keep (default: a temporary one, removed afterwards)')
    .action(async (flags: DemoOptions) => {
      process.exitCode = await runDemo(flags);
    });
}
