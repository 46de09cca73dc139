import { execFile, spawn } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, STACK_TRACE } from '../../support/cli.js';
import { listingStore } from '../../support/listingStore.js';
import { tempDir } from '../../support/tempDir.js';

const run = promisify(execFile);
const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});

describe('rejects and links listings from the command line', () => {
  it('runs from the command line with a configuration that has no API key', { timeout: 30_000 }, async () => {
    const { dir, path } = listingStore(cleanups);
    const configFile = join(dir, 'erp-sync.yaml');
    writeFileSync(configFile, `erp:\n  type: file\n  path: ${dir}\nstore:\n  path: ${path}\n`);
    const env = { ...process.env, CMS_API_KEY: '', CMS_BASE_URL: '', ERP_SYNC_STORE: '' };
    const { stdout } = await run(
      'npx',
      ['tsx', 'src/cli/main.ts', '--config', configFile, 'rejects', '--json'],
      { env },
    );
    expect(JSON.parse(stdout)).toEqual([expect.objectContaining({ key: 'A-1', count: 1 })]);
  });

  it(
    'refuses a missing store and a bad --limit in one line, and creates nothing',
    { timeout: 30_000 },
    async () => {
      const { dir } = tempDir('erp-sync-cli-');
      const missing = join(dir, 'typo', 'store.db');
      const [noStore, badLimit] = await Promise.all([
        runCli(['rejects', '--store', missing]),
        runCli(['links', '--orders', '--limit', '0', '--store', missing]),
      ]);
      expect(noStore.code).toBe(1);
      expect(noStore.stderr).toBe(
        `erp-sync: store_failure: no store at ${missing}: nothing has run with this store.path yet, or the path is wrong\n`,
      );
      expect(existsSync(join(dir, 'typo'))).toBe(false);
      expect(badLimit.code).toBe(64); // a usage error
      expect(badLimit.stderr).toMatch(
        /^error: option '--limit <n>' argument '0' is invalid\. must be a whole number/,
      );
      rmSync(dir, { recursive: true, force: true });
    },
  );

  it('ends quietly when the reader of its output stops early (| head)', { timeout: 30_000 }, async () => {
    const { path, store } = listingStore(cleanups);
    store.productLinks.upsertMany(
      Array.from({ length: 20_000 }, (_, i) => ({
        sku: `MANY-${i}`,
        variantSku: null,
        productId: 100 + i,
        variantId: null,
        platformUpdatedAt: null,
      })),
    );
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'links', '--store', path]);
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.once('data', () => child.stdout.destroy());
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect(stderr).not.toMatch(STACK_TRACE);
    expect(stderr).not.toContain('EPIPE');
    expect(code).toBe(0);
  });
});
