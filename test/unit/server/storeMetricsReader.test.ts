import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMetrics } from '../../../src/server/createMetrics.js';
import { storeMetricsReader } from '../../../src/server/storeMetricsReader.js';
import { openStore, type Store } from '../../../src/store/Store.js';
import { asReadReceipt } from '../../../src/erp/ErpRead.js';
import { commitErpRead } from '../../../src/sync/push/erpReadCommit.js';
import { emptySummary } from '../../../src/sync/frame/summary.js';
import type { SyncContext } from '../../../src/sync/frame/types.js';
import { MemoryErpAdapter } from '../../support/MemoryErpAdapter.js';

const NOW = Date.parse('2026-11-24T12:00:00.000Z');

describe('store gauges at scrape time', () => {
  let dir: string;
  let store: Store;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'erp-sync-metrics-'));
    store = openStore(join(dir, 'state.db'));
  });
  afterEach(() => {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const scrape = () => createMetrics({ store: storeMetricsReader(store), now: () => NOW }).render();

  it('reports open rejects per pipeline (0 for the others) and follows resolution', async () => {
    const metrics = createMetrics({ store: storeMetricsReader(store), now: () => NOW });
    store.rejects.record({ pipeline: 'stock', key: 'A', reason: 'quantity is not a number' });
    store.rejects.record({ pipeline: 'stock', key: 'B', reason: 'quantity is not a number' });
    store.rejects.record({ pipeline: 'prices', key: 'C', reason: 'price is negative' });
    let text = await metrics.render();
    expect(text).toContain('erp_sync_rejects_open{pipeline="stock"} 2');
    expect(text).toContain('erp_sync_rejects_open{pipeline="prices"} 1');
    expect(text).toContain('erp_sync_rejects_open{pipeline="catalog"} 0');

    // Read again at the next scrape: a reject resolved in between is gone from the count.
    store.rejects.resolve('stock', 'A');
    text = await metrics.render();
    expect(text).toContain('erp_sync_rejects_open{pipeline="stock"} 1');
  });

  it('reports parked orders and the age of the oldest, 0 when none', async () => {
    expect(await scrape()).toContain('erp_sync_orders_parked 0');
    expect(await scrape()).toContain('erp_sync_orders_parked_oldest_age_seconds 0');
    const parked = store.orders.parked;
    parked.park(
      { platformOrderId: 1, number: 'N1', code: 'unknown_sku', reason: 'SKU X' },
      new Date(NOW - 7_200_000),
    );
    parked.park(
      { platformOrderId: 2, number: 'N2', code: 'unknown_sku', reason: 'SKU Y' },
      new Date(NOW - 60_000),
    );
    // A second failed attempt keeps the first-parked time: the age is the wait, not the last try.
    parked.park(
      { platformOrderId: 1, number: 'N1', code: 'unknown_sku', reason: 'SKU X' },
      new Date(NOW - 1_000),
    );
    const text = await scrape();
    expect(text).toContain('erp_sync_orders_parked 2');
    expect(text).toContain('erp_sync_orders_parked_oldest_age_seconds 7200');

    parked.unpark(1);
    expect(await scrape()).toContain('erp_sync_orders_parked_oldest_age_seconds 60');
  });

  it("reports the age of each pipeline's last committed ERP read, absent before the first", async () => {
    const later = Date.now() + 90_000;
    const metrics = createMetrics({ store: storeMetricsReader(store), now: () => later });
    expect(await metrics.render()).not.toMatch(/^erp_sync_erp_read_age_seconds\{/m);
    const erp = new MemoryErpAdapter();
    await erp.open();
    const ctx = { store, erp } as unknown as SyncContext;
    await commitErpRead(ctx, 'stock', asReadReceipt(JSON.stringify({ kind: 'stock', upTo: 3 })));
    const age = /^erp_sync_erp_read_age_seconds\{pipeline="stock"\} (\S+)$/m.exec(await metrics.render());
    expect(Number(age?.[1])).toBeGreaterThan(85);
    expect(Number(age?.[1])).toBeLessThanOrEqual(90);
    expect(await metrics.render()).not.toContain('erp_sync_erp_read_age_seconds{pipeline="prices"}');
  });

  it('fails no scrape when the store is closed: counts the error instead', async () => {
    const metrics = createMetrics({ store: storeMetricsReader(store), now: () => NOW });
    metrics.recordRun(emptySummary('stock', { full: false, dryRun: false }));
    store.close();
    const text = await metrics.render();
    expect(text).toContain('erp_sync_store_read_errors_total 4');
    expect(text).toContain('erp_sync_runs_total{pipeline="stock",status="ok"} 1');
  });

  it('keeps the API without a store: no store gauges', async () => {
    const text = await createMetrics().render();
    expect(text).not.toContain('erp_sync_rejects_open');
    expect(text).not.toContain('erp_sync_store_read_errors_total');
  });
});
