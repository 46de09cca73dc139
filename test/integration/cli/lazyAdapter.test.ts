import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeConfigFile } from '../../../src/config.js';
import { openStore } from '../../../src/store/index.js';
import { CLI_ENTRY, PROJECT_ROOT } from '../../support/cli.js';

// createErpAdapter loads the chosen adapter only when a command needs the ERP: `status` must not
// load an adapter (a SQL driver at that), `check` must. Observed on a real child process.

let dir: string;
let configFile: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'erp-sync-lazy-'));
  configFile = join(dir, 'config.yaml');
  writeConfigFile(configFile, {
    api: { baseUrl: 'http://127.0.0.1:9/api/v2', apiKey: 'not-used' },
    erp: { type: 'file', path: dir },
    store: { path: join(dir, 'store.db') },
  });
  writeFileSync(join(dir, 'stock.csv'), 'sku,quantity\nA,1\n');
  openStore(join(dir, 'store.db')).close(); // status shows a store, it never creates one
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The project modules under src/erp/ that `erp-sync ARGS` loaded, relative to src/erp/. */
function erpModulesLoadedBy(args: string[]): Promise<{ code: number | null; modules: string[] }> {
  const loads = join(dir, `loads-${args[0]}.txt`);
  writeFileSync(loads, '');
  const recorder = join(PROJECT_ROOT, 'test/support/recordModuleLoads.mjs');
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--import', recorder, CLI_ENTRY, ...args], {
      cwd: PROJECT_ROOT,
      env: { PATH: process.env.PATH ?? '', MODULE_LOADS_FILE: loads },
      stdio: 'ignore',
    });
    child.once('error', fail);
    child.once('exit', (code) => {
      const prefix = `file://${join(PROJECT_ROOT, 'src/erp')}/`;
      const modules = readFileSync(loads, 'utf8')
        .split('\n')
        .filter((url) => url.startsWith(prefix))
        .map((url) => url.slice(prefix.length));
      done({ code, modules: [...new Set(modules)].sort() });
    });
  });
}

describe('adapters load only when chosen', () => {
  it('status loads no adapter, only its configuration schema; check loads the adapter', async () => {
    const status = await erpModulesLoadedBy(['status', '--config', configFile]);
    expect(status.code).toBe(0);
    expect(status.modules).toContain('file/fileConfigSchema.ts');
    expect(status.modules).not.toContain('file/FileErpAdapter.ts');
    expect(status.modules.filter((m) => /^file\/(readers|orders)\//.test(m))).toEqual([]);
    // The recorder does see adapter modules when they load.
    const check = await erpModulesLoadedBy(['check', '--config', configFile]);
    expect(check.modules).toContain('createErpAdapter.ts');
    expect(check.modules).toContain('file/FileErpAdapter.ts');
    expect(check.modules.filter((m) => m.startsWith('file/readers/')).length).toBeGreaterThan(0);
  });
});
