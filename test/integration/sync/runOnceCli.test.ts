import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunSummary } from '../../../src/sync/types.js';
import { runCli } from '../../unit/cli/runCli.js';
import { bulkSku, createHarness, type Harness } from './syncHarness.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

function writeConfig(h: Harness): string {
  const file = join(h.dir, 'config.yaml');
  writeFileSync(
    file,
    [
      'erp:',
      '  type: file',
      `  path: ${h.dir}`,
      '  stableMs: 0',
      'store:',
      `  path: ${h.config.store.path}`,
      'log:',
      '  level: silent',
    ].join('\n'),
  );
  return file;
}

describe('erp-sync run-once', () => {
  it('prints a summary per pipeline, as a table or as JSON, and exits 0', async () => {
    harness = await createHarness({ extraProducts: 5 });
    harness.writeStock([1, 2, 3].map((n) => ({ sku: bulkSku(n), quantity: n })));
    harness.writePrices([{ sku: bulkSku(1), price: 10 }]);
    const config = writeConfig(harness);
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
  }, 30_000);

  it('stops with exit code 2 and says what to do when the key is refused', async () => {
    harness = await createHarness({ extraProducts: 5 });
    harness.writeStock([{ sku: bulkSku(1), quantity: 1 }]);
    const config = writeConfig(harness);
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
