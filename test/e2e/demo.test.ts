import { describe, expect, it } from 'vitest';
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
  });
});
