import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { writeConfigFile } from '../../config.js';
import { PROJECT_ROOT } from '../../projectRoot.js';
import type { Sandbox } from '../../sandbox/index.js';
import type { DemoJanitor } from './startDemoJanitor.js';

const SAMPLE_DIR = join(PROJECT_ROOT, 'config', 'sample');

/** The demo's world: the sandbox, a copy of the sample ERP drop folder, a config file and a store. */
export interface DemoWorld {
  sandbox: Sandbox;
  workDir: string;
  erpDir: string;
  configFile: string;
  storePath: string;
  /** Whether close() removes the work folder (a temporary one, unless --keep). */
  removesWorkDir: boolean;
  close(): Promise<void>;
}

export interface DemoWorldOptions {
  /** Work folder to use and keep (default: a temporary one). */
  dir?: string;
  keep: boolean;
  /** Configuration beyond the ERP, the store and the log level (the daemon's part). */
  config?: Record<string, unknown>;
  /** Told about a temporary work folder, to remove it should the demo be killed. */
  janitor?: DemoJanitor;
}

/**
 * Copies config/sample into the work folder with an ERP-origin order, writes the configuration,
 * starts the sandbox and points this process's environment at it (the demo's API key and store,
 * whatever a deployment's environment says: the image sets ERP_SYNC_* too).
 */
export async function openDemoWorld(options: DemoWorldOptions): Promise<DemoWorld> {
  const workDir = options.dir ? resolve(options.dir) : mkdtempSync(join(tmpdir(), 'erp-sync-demo-'));
  const removesWorkDir = !options.dir && !options.keep;
  if (removesWorkDir) options.janitor?.watchDir(workDir);
  const removeWorkDir = (): void => {
    if (removesWorkDir) rmSync(workDir, { recursive: true, force: true });
  };
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
    ...options.config,
  });

  let sandbox: Sandbox;
  try {
    // Loaded here, not at start-up: every other command would pay for fastify and the seed.
    const { startSandbox } = await import('../../sandbox/index.js');
    sandbox = await startSandbox({ seed: 'demo', logLevel: 'warn' });
  } catch (error) {
    removeWorkDir();
    throw error;
  }
  process.env.CMS_BASE_URL = sandbox.url;
  process.env.CMS_API_KEY = sandbox.keys.primary;
  process.env.ERP_SYNC_STORE = storePath;
  return {
    sandbox,
    workDir,
    erpDir,
    configFile,
    storePath,
    removesWorkDir,
    async close() {
      try {
        await sandbox.close();
      } finally {
        removeWorkDir();
      }
    },
  };
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
