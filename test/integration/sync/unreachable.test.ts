import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStoreFromConfig } from '../../../src/store/index.js';
import { CATALOG_CURSOR } from '../../../src/sync/catalog/catalog.js';
import { runCli, STACK_TRACE } from '../../support/cli.js';
import { bulkSku, createHarness, type Harness } from '../../support/syncHarness.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/**
 * A local port nothing listens on: connections to it are refused at once. A privileged port, not
 * one freed after binding it: another test file running at the same time may take a freed port.
 */
async function closedPort(): Promise<number> {
  return 1;
}

/** What the store holds as acknowledged after a run. */
function acknowledged(h: Harness): { stock: number; prices: number; cursor: string | null } {
  const store = openStoreFromConfig(h.config.store);
  try {
    return {
      stock: store.fingerprints.count('stock').total,
      prices: store.fingerprints.count('prices').total,
      cursor: store.cursors.get(CATALOG_CURSOR),
    };
  } finally {
    store.close();
  }
}

describe('run-once when a side is down', () => {
  it('names an unreachable API, stops there, records nothing as acknowledged and never prints the key', async () => {
    harness = await createHarness({ extraProducts: 3 });
    harness.writeStock([1, 2, 3].map((n) => ({ sku: bulkSku(n), quantity: n })));
    harness.writePrices([{ sku: bulkSku(1), price: 9.5 }]);
    const config = harness.configFile({ logLevel: 'debug', api: { retries: 1 } });
    const key = harness.sandbox.keys.primary;
    const env = { CMS_BASE_URL: `http://127.0.0.1:${await closedPort()}/api/v2`, CMS_API_KEY: key };

    const [table, json] = await Promise.all([
      runCli(['run-once', '--only', 'stock,prices,catalog', '-c', config], env),
      runCli(['run-once', '--only', 'prices', '--json', '-c', config], env),
    ]);
    expect(table.code).toBe(1);
    expect(table.stdout).toMatch(/^stock: .*api_network: .*ECONNREFUSED/m);
    expect(table.stderr).toMatch(
      /the platform at http:\/\/127\.0\.0\.1:\d+\/api\/v2 cannot be reached; not run: prices, catalog/,
    );
    expect(table.stdout).toMatch(/\nstock\s+3\s+0\s+/);
    expect(table.stdout).not.toMatch(/\nprices\s/);
    expect(table.stderr).toContain('"level":20'); // debug lines were written, and none holds the key
    expect(json.code).toBe(1);
    const summaries = (JSON.parse(json.stdout) as { summaries: { applied: number; error?: object }[] })
      .summaries;
    expect(summaries).toMatchObject([
      {
        applied: 0,
        error: { code: 'api_network', kind: 'retryable', message: expect.stringMatching(/ECONNREFUSED/) },
      },
    ]);
    for (const result of [table, json]) {
      expect(result.stderr).not.toMatch(STACK_TRACE);
      expect(result.stdout + result.stderr).not.toContain(key);
    }
    expect(acknowledged(harness)).toEqual({ stock: 0, prices: 0, cursor: null });
  }, 40_000);

  it('names a missing ERP drop folder, sends nothing, records nothing and does not create the folder', async () => {
    harness = await createHarness({ seed: 'demo' });
    const missing = join(harness.dir, 'not-mounted');
    const config = harness.configFile({ erpPath: missing, logLevel: 'error' });
    const key = harness.sandbox.keys.primary;
    harness.sandbox.requestLog.clear();
    const result = await runCli(['run-once', '-c', config], {
      CMS_BASE_URL: harness.sandbox.url,
      CMS_API_KEY: key,
    });

    expect(result.code).toBe(1);
    for (const pipeline of ['stock', 'prices']) {
      expect(result.stdout).toMatch(
        new RegExp(`^${pipeline}: erp_unavailable: cannot read the ERP drop folder ${missing}: ENOENT`, 'm'),
      );
    }
    expect(result.stderr).not.toMatch(STACK_TRACE);
    expect(result.stdout + result.stderr).not.toContain(key);
    // The orders pipeline did not write the demo orders into a folder created on the fly (no ERP
    // reads it, and stock/prices would then read it as an empty ERP).
    expect(existsSync(missing)).toBe(false);
    expect(harness.writes().filter((entry) => /\/products\/(stock|prices)\/bulk$/.test(entry.path))).toEqual(
      [],
    );
    expect(acknowledged(harness)).toMatchObject({ stock: 0, prices: 0 });
  }, 40_000);
});
