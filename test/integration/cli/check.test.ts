import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeConfigFile } from '../../../src/config.js';
import { startSandbox, type Sandbox } from '../../../src/sandbox/index.js';
import { runCli } from '../../support/cli.js';

let sandbox: Sandbox;
let dir: string;
let configFile: string;

beforeAll(async () => {
  sandbox = await startSandbox({ seed: 'demo' });
  dir = mkdtempSync(join(tmpdir(), 'erp-sync-check-'));
  configFile = join(dir, 'config.yaml');
  writeConfigFile(configFile, { erp: { type: 'file', path: dir }, store: { path: join(dir, 'store.db') } });
  writeFileSync(join(dir, 'stock.csv'), 'sku,quantity\nDEMO-0001,5\n');
});

afterAll(async () => {
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('erp-sync check', () => {
  it('reports configuration, API key, ERP and store as ok', async () => {
    const result = await runCli(['check', '--config', configFile], {
      CMS_BASE_URL: sandbox.url,
      CMS_API_KEY: sandbox.keys.primary,
    });
    expect(result.stdout).toMatch(/^ok\s+configuration/m);
    expect(result.stdout).toMatch(/^ok\s+platform API: .*account: /m);
    expect(result.stdout).toMatch(/^ok\s+ERP \(file\)/m);
    expect(result.stdout).toMatch(/^ok\s+store/m);
    expect(result.code).toBe(0);
  });

  it('fails on a revoked key, says why, and never prints the key', async () => {
    const result = await runCli(['check', '--config', configFile, '--json'], {
      CMS_BASE_URL: sandbox.url,
      CMS_API_KEY: sandbox.keys.revoked,
    });
    expect(result.code).toBe(1);
    const lines = JSON.parse(result.stdout) as { what: string; ok: boolean; details: string }[];
    const api = lines.find((line) => line.what === 'platform API');
    expect(api?.ok).toBe(false);
    expect(api?.details).toMatch(/invalid_token|api_auth/);
    expect(result.stdout + result.stderr).not.toContain(sandbox.keys.revoked);
  });

  it('names the missing key when the configuration is incomplete', async () => {
    const result = await runCli(['check', '--config', configFile], { CMS_BASE_URL: sandbox.url });
    expect(result.code).toBe(78); // an invalid configuration, as for every command
    expect(result.stdout).toMatch(
      /^FAIL configuration: [\s\S]*api\.apiKey: is required \(set it in the file or with env CMS_API_KEY\)/m,
    );
  });
});
