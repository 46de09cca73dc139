import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.js';
import { runCli } from '../support/cli.js';

describe('erp-sync demo', () => {
  it('runs every pipeline against the sandbox and shows the order shipped with AWB and invoice', async () => {
    const result = await runCli(['demo'], {}, { timeoutMs: 90_000 });
    expect(result.stderr).not.toMatch(/Error:|at .*\.ts:\d+/);
    expect(result.code).toBe(0);
    for (const pipeline of ['catalog', 'orders', 'stock', 'prices', 'feedback', 'erp-orders']) {
      expect(result.stdout).toMatch(new RegExp(`^${pipeline}\\s+\\d+`, 'm'));
    }
    expect(result.stdout).toMatch(/platform now says: order \d+ shipped, AWB \S+ \(fan\), invoice \S+/);
    expect(result.stdout).toContain('not on the platform');
    expect(result.stdout).toContain('vat_rate must be between 0 and 100');
    // the second run: every good row unchanged, so nothing is sent (prices makes no request at all)
    expect(result.stdout).toMatch(/^stock\s+38\s+35\s+0\s+0\s+1\s+2\s/m);
    expect(result.stdout).toMatch(/^prices\s+36\s+35\s+0\s+0\s+0\s+1\s+0\s/m);
    expect(result.stdout).toContain('duplicate of line 2');
    // The work folder is removed at the end: the closing hint must not send the user there.
    const done = result.stdout.slice(result.stdout.indexOf('== Done.'));
    const folders = [...done.matchAll(/(\/\S*erp-sync-demo-\w+)/g)].map((m) => m[1]!);
    expect(folders.filter((folder) => !existsSync(folder))).toEqual([]);
  });

  it('starts a new store on every run, also in a kept --dir', { timeout: 200_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'erp-sync-demo-dir-'));
    try {
      const urls: string[] = [];
      for (let run = 0; run < 2; run += 1) {
        const result = await runCli(['demo', '--dir', dir], {}, { timeoutMs: 90_000 });
        expect(result.code, result.stderr).toBe(0);
        expect(result.stdout).toContain(`erp-sync status --config ${join(dir, 'erp-sync.yaml')}`);
        const store = openStore(join(dir, 'erp-sync.db'), { mustExist: true });
        try {
          urls.push(store.account.get()!.baseUrl);
        } finally {
          store.close();
        }
      }
      // Each demo had its own sandbox (another address), and its own store bound to it.
      expect(new Set(urls).size).toBe(2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
