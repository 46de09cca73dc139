import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from './cli.js';

const run = promisify(execFile);
export const TRYTON_SCRIPT = resolve(PROJECT_ROOT, 'test/fixtures/tryton/tryton.sh');

/** What test/fixtures/tryton/seed.py creates (ids are stable in the seeded snapshot). */
export const TRYTON_SEED = {
  database: 'erp',
  user: 'admin',
  password: 'tryton-admin-pw',
  companyId: 1,
  warehouses: { WH: 5, WH2: 12 },
  taxId: 1,
  skus: Array.from({ length: 20 }, (_, i) => `SKU-${String(i + 1).padStart(4, '0')}`),
  listPrice: (index: number): number => Math.round((8.07 + 3.07 * index) * 100) / 100,
  stockWh: (index: number): number => 10 + index,
  stockWh2: (index: number): number => index % 4,
} as const;

export interface TrytonServer {
  /** Server URL ending in '/' (the JSON-RPC endpoint is `${url}${database}/`). */
  url: string;
  database: string;
  user: string;
  password: string;
  /** Puts the seeded database back and restarts the server on the same port (~2 s). */
  restore(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A private Tryton for one test file: its own copy of the seeded SQLite database and its own
 * trytond on a free loopback port. The script installs and seeds on first use (under a lock, so
 * parallel files wait for one seeding) and fails loudly when it cannot: never a skip.
 */
export async function startTryton(): Promise<TrytonServer> {
  const dir = mkdtempSync(join(tmpdir(), 'erp-sync-tryton-run-'));
  const script = (args: string[]) =>
    run(TRYTON_SCRIPT, args, { maxBuffer: 4 << 20, timeout: 600_000 }).then((r) => r.stdout.trim());
  let url: string;
  try {
    url = await script(['start', dir]);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    const stderr = (error as { stderr?: string }).stderr ?? '';
    throw new Error(`Tryton bring-up failed (${TRYTON_SCRIPT} start ${dir}):\n${stderr}`, { cause: error });
  }
  return {
    url,
    database: TRYTON_SEED.database,
    user: TRYTON_SEED.user,
    password: TRYTON_SEED.password,
    restore: async () => {
      await script(['restore', dir]);
    },
    stop: async () => {
      await script(['stop', dir]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
