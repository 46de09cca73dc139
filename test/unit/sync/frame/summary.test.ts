import { describe, expect, it } from 'vitest';
import { emptySummary, formatSummaryTable } from '../../../../src/sync/frame/summary.js';

describe('formatSummaryTable', () => {
  it('prints one aligned row per pipeline with every count', () => {
    const stock = {
      ...emptySummary('stock', { full: false, dryRun: false }),
      read: 100000,
      sent: 12,
      applied: 10,
      notFound: 2,
      requests: 1,
      seconds: 1.234,
    };
    const prices = { ...emptySummary('prices', { full: false, dryRun: true }), read: 5 };
    const lines = formatSummaryTable([stock, prices]).split('\n');
    expect(lines[0]).toMatch(
      /^pipeline\s+read\s+unchanged\s+sent\s+applied\s+not found\s+rejected\s+requests\s+seconds$/,
    );
    expect(lines[2]).toMatch(/^stock\s+100000\s+0\s+12\s+10\s+2\s+0\s+1\s+1\.23$/);
    expect(lines[3]).toMatch(/^prices \(dry run\)\s+5\s/);
    expect(new Set(lines.slice(0, 4).map((l) => l.length)).size).toBe(1);
  });

  it('names a fatal error under the table', () => {
    const s = {
      ...emptySummary('stock', { full: false, dryRun: false }),
      error: { code: 'api_auth', kind: 'fatal', message: 'invalid key' } as const,
    };
    expect(formatSummaryTable([s])).toContain('stock: STOPPED: api_auth: invalid key');
  });
});
