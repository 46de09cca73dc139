import { afterEach, describe, expect, it } from 'vitest';
import type { RunSummary } from '../../../src/sync/frame/types.js';
import { openStoreFromConfig } from '../../../src/store/index.js';
import { runCli } from '../../support/cli.js';
import { bulkSku, createHarness, type Harness } from '../../support/syncHarness.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('erp-sync run-once', () => {
  it('prints a summary per pipeline, as a table or as JSON, and exits 0', async () => {
    harness = await createHarness({ extraProducts: 5 });
    harness.writeStock([1, 2, 3].map((n) => ({ sku: bulkSku(n), quantity: n })));
    harness.writePrices([{ sku: bulkSku(1), price: 10 }]);
    const config = harness.configFile({ logLevel: 'debug' });
    const env = { CMS_BASE_URL: harness.sandbox.url, CMS_API_KEY: harness.sandbox.keys.primary };

    const json = await runCli(['run-once', '--only', 'stock,prices', '--json', '-c', config], env);
    expect(json.code).toBe(0);
    const { summaries } = JSON.parse(json.stdout) as { summaries: RunSummary[] };
    expect(summaries.map((s) => [s.pipeline, s.read, s.applied])).toEqual([
      ['stock', 3, 3],
      ['prices', 1, 1],
    ]);

    const table = await runCli(['run-once', '--only', 'stock', '--config', config], env);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(
      /^pipeline\s+read\s+unchanged\s+sent\s+applied\s+not found\s+rejected\s+requests\s+seconds/,
    );
    expect(table.stdout).toMatch(/\nstock\s+3\s+3\s+0\s+0\s+0\s+0\s/);
    // Debug logs of every request were written, and neither they nor the output hold the key.
    expect(json.stderr).toMatch(/"level":20,.*"path":"\/products\/stock\/bulk"/);
    for (const result of [json, table]) expect(result.stdout + result.stderr).not.toContain(env.CMS_API_KEY);
  }, 30_000);

  it('with --dry-run prints what would be sent and sends and records nothing; --full then resends all', async () => {
    harness = await createHarness({ extraProducts: 3 });
    harness.writeStock([1, 2, 3].map((n) => ({ sku: bulkSku(n), quantity: 10 + n })));
    const config = harness.configFile();
    const env = { CMS_BASE_URL: harness.sandbox.url, CMS_API_KEY: harness.sandbox.keys.primary };

    const dry = await runCli(['run-once', '--only', 'stock', '--dry-run', '-c', config], env);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(/\nstock \(dry run\)\s+3\s+0\s+3\s+0\s/);
    expect(dry.stdout).toContain('stock: would send 3 item(s) in 1 request(s); the first 3:');
    expect(dry.stdout).toContain(`  {"sku":"${bulkSku(2)}","quantity":12}`);
    expect(harness.writes()).toEqual([]);
    const store = openStoreFromConfig(harness.config.store);
    try {
      expect(store.fingerprints.count('stock').total).toBe(0);
      expect(store.runs.recent()).toEqual([]);
    } finally {
      store.close();
    }

    expect((await runCli(['run-once', '--only', 'stock', '-c', config], env)).code).toBe(0);
    harness.sandbox.requestLog.clear();
    const full = await runCli(['run-once', '--only', 'stock', '--full', '--json', '-c', config], env);
    expect(JSON.parse(full.stdout)).toMatchObject({ summaries: [{ sent: 3, applied: 3, unchanged: 0 }] });
    expect(harness.writes()).toHaveLength(1);
  }, 30_000);

  it('stops with exit code 2 and says what to do when the key is refused', async () => {
    harness = await createHarness({ extraProducts: 5 });
    harness.writeStock([{ sku: bulkSku(1), quantity: 1 }]);
    const config = harness.configFile();
    const result = await runCli(['run-once', '--only', 'stock,prices', '-c', config], {
      CMS_BASE_URL: harness.sandbox.url,
      CMS_API_KEY: harness.sandbox.keys.revoked,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('stock stopped: api_auth');
    expect(result.stderr).toContain('check api.apiKey (or CMS_API_KEY)');
    expect(result.stderr).not.toContain(harness.sandbox.keys.revoked);
    // prices did not run after the fatal error
    expect(result.stdout).not.toMatch(/\nprices\s/);
  }, 30_000);
});
