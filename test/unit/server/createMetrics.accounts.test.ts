import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createAccountMetrics } from '../../../src/server/createMetrics.js';
import { storeMetricsReader } from '../../../src/server/storeMetricsReader.js';
import { openStore, type Store } from '../../../src/store/Store.js';
import { emptySummary } from '../../../src/sync/frame/summary.js';

const dir = mkdtempSync(join(tmpdir(), 'erp-sync-metrics-accounts-'));
const stores: Store[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('metrics of several accounts', () => {
  it('label every erp_sync_* series with its account, in one exposition with one HELP per family', async () => {
    const a = openStore(join(dir, 'a.db'));
    const b = openStore(join(dir, 'b.db'));
    stores.push(a, b);
    b.rejects.record({ pipeline: 'stock', key: 'X', reason: 'quantity is not a number' });
    const metrics = createAccountMetrics();
    const acme = metrics.forAccount('acme', storeMetricsReader(a));
    const globex = metrics.forAccount('globex', storeMetricsReader(b));
    acme.recordRun({ ...emptySummary('stock', { full: false, dryRun: false }), read: 3, applied: 3 });
    globex.setPaused(true);
    globex.setQueueJobs('pushes', { waiting: 2 });
    acme.setErpWatching(true);
    const text = await metrics.render();
    expect(text).toContain('erp_sync_runs_total{account="acme",pipeline="stock",status="ok"} 1');
    expect(text).toContain('erp_sync_items_total{account="acme",pipeline="stock",outcome="applied"} 3');
    expect(text).toContain('erp_sync_paused{account="acme"} 0');
    expect(text).toContain('erp_sync_paused{account="globex"} 1');
    expect(text).toContain('erp_sync_queue_jobs{account="globex",queue="pushes",state="waiting"} 2');
    expect(text).toContain('erp_sync_rejects_open{account="globex",pipeline="stock"} 1');
    expect(text).toContain('erp_sync_rejects_open{account="acme",pipeline="stock"} 0');
    expect(text).toContain('erp_sync_erp_watch_up{account="acme"} 1');
    // Every erp_sync_ sample names its account; each family is described once.
    const samples = text.split('\n').filter((line) => line.startsWith('erp_sync_'));
    expect(samples.length).toBeGreaterThan(20);
    expect(samples.filter((line) => !line.includes('account="'))).toEqual([]);
    const helps = text.split('\n').filter((line) => line.startsWith('# HELP erp_sync_paused '));
    expect(helps).toHaveLength(1);
  });

  it('a store that cannot be read keeps its account last values and counts the error for it alone', async () => {
    const a = openStore(join(dir, 'a2.db'));
    const b = openStore(join(dir, 'b2.db'));
    stores.push(a);
    a.rejects.record({ pipeline: 'prices', key: 'P', reason: 'price is negative' });
    b.rejects.record({ pipeline: 'stock', key: 'X', reason: 'quantity is not a number' });
    const metrics = createAccountMetrics();
    metrics.forAccount('acme', storeMetricsReader(a));
    metrics.forAccount('globex', storeMetricsReader(b));
    await metrics.render();
    b.close();
    const text = await metrics.render();
    expect(text).toContain('erp_sync_rejects_open{account="globex",pipeline="stock"} 1');
    expect(text).toContain('erp_sync_rejects_open{account="acme",pipeline="prices"} 1');
    expect(text).toMatch(/erp_sync_store_read_errors_total\{account="globex"\} [1-9]/);
    expect(text).toContain('erp_sync_store_read_errors_total{account="acme"} 0');
  });
});
