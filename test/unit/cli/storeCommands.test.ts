import { execFile, spawn } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { formatRejects, productLinkLines } from '../../../src/cli/storeCommands.js';
import { openStore } from '../../../src/store/Store.js';
import { runCli, STACK_TRACE } from '../../support/cli.js';
import { tempDir } from '../../support/tempDir.js';

const run = promisify(execFile);
const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});

function seeded() {
  const { dir, cleanup } = tempDir('erp-sync-cli-');
  cleanups.push(cleanup);
  const path = join(dir, 'store.db');
  const store = openStore(path);
  store.rejects.record({
    pipeline: 'stock',
    key: 'A-1',
    reason: 'quantity must be at least 0, got -3',
    source: { file: 'stock.csv', line: 4 },
  });
  store.rejects.record({ pipeline: 'prices', key: 'B', reason: 'not on the platform' });
  store.rejects.resolve('prices', 'B');
  store.productLinks.upsertMany([
    { sku: 'A-1', variantSku: null, productId: 1, variantId: null, platformUpdatedAt: null },
    { sku: 'TS', variantSku: 'TS-M', productId: 2, variantId: 21, platformUpdatedAt: null },
  ]);
  cleanups.push(() => store.close());
  return { dir, path, store };
}

describe('rejects and links listings', () => {
  it('lists open rejects with their place, and resolved ones only with --all', () => {
    const { store } = seeded();
    const open = formatRejects(store, { all: false, json: false });
    expect(open).toContain('stock.csv:4');
    expect(open).not.toContain('not on the platform');
    expect(open).toMatch(/1 open\n$/);
    expect(formatRejects(store, { all: true, json: false })).toContain('not on the platform');
    expect(formatRejects(store, { pipeline: 'orders', all: false, json: false })).toBe(
      'no open rejects for orders\n',
    );
    const json = JSON.parse(formatRejects(store, { all: true, json: true }));
    expect(json).toHaveLength(2);
  });

  it('streams product links as valid JSON, and says when there are none', () => {
    const { store } = seeded();
    const links = JSON.parse([...productLinkLines(store, { json: true })].join(''));
    expect(links).toEqual([
      { sku: 'A-1', variantSku: null, productId: 1, variantId: null, platformUpdatedAt: null },
      { sku: 'TS', variantSku: 'TS-M', productId: 2, variantId: 21, platformUpdatedAt: null },
    ]);
    const empty = openStore(':memory:');
    expect(JSON.parse([...productLinkLines(empty, { json: true })].join(''))).toEqual([]);
    expect([...productLinkLines(empty, { json: false })].join('')).toMatch(/^no product links/);
    empty.close();
  });

  it('runs from the command line with a configuration that has no API key', { timeout: 30_000 }, async () => {
    const { dir, path } = seeded();
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
    const { path, store } = seeded();
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
