import { afterEach, describe, expect, it } from 'vitest';
import type { ErpAdapter } from '../../../src/erp/ErpAdapter.js';
import type { ErpRead } from '../../../src/erp/ErpRead.js';
import { PIPELINE_ORDER } from '../../../src/domain/pipelineNames.js';
import { PIPELINES } from '../../../src/sync/registry.js';
import { runPipeline } from '../../../src/sync/runPipeline.js';
import type { ProgressEvent, RequestCounter, SyncContext } from '../../../src/sync/frame/types.js';
import { captureLog } from '../../support/logCapture.js';
import { bulkSku, createHarness, type Harness } from '../../support/syncHarness.js';

const RUN = { full: false, dryRun: false };
let harness: Harness | undefined;

afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** The context with an ERP whose reads throw a plain TypeError: a bug, not one of our errors. */
function brokenErp(ctx: SyncContext): SyncContext {
  const failing = <T>(): AsyncIterable<T> => ({
    [Symbol.asyncIterator]: () => ({
      next: () => Promise.reject(new TypeError('boom: a bug in the adapter')),
    }),
  });
  const boom = (): ErpRead<never> & AsyncIterable<never> => ({
    receipt: null,
    ...failing<never>(),
    groups: failing,
  });
  const erp: ErpAdapter = { ...ctx.erp, stock: boom, prices: boom, orderEvents: boom, outgoingOrders: boom };
  return { ...ctx, erp };
}

describe('the one run frame', () => {
  it('states the run order once and has a pipeline for every name', () => {
    expect(PIPELINE_ORDER).toEqual([
      'catalog',
      'products',
      'orders',
      'stock',
      'prices',
      'feedback',
      'erp-orders',
    ]);
    expect(Object.keys(PIPELINES).sort()).toEqual([...PIPELINE_ORDER].sort());
  });

  it('counts each run’s own requests when two runs share one context at the same time', async () => {
    harness = await createHarness({ extraProducts: 300, sync: { batchSize: 100, concurrency: 2 } });
    harness.writeStock(Array.from({ length: 300 }, (_, i) => ({ sku: bulkSku(i + 1), quantity: 4 })));
    harness.writePrices(Array.from({ length: 200 }, (_, i) => ({ sku: bulkSku(i + 1), price: 9.5 })));
    harness.sandbox.setFaults('latency=20-40');
    const ctx = await harness.context();
    const live: RequestCounter = { total: 0, writes: 0 };
    const [stock, prices, catalog] = await Promise.all([
      runPipeline('stock', ctx, { ...RUN, requests: live }),
      runPipeline('prices', ctx, { ...RUN, requests: live }),
      runPipeline('catalog', ctx, RUN),
    ]);
    harness.sandbox.setFaults(null);
    expect(stock).toMatchObject({ pipeline: 'stock', applied: 300, requests: 3, writeRequests: 3 });
    expect(prices).toMatchObject({ pipeline: 'prices', applied: 200, requests: 2, writeRequests: 2 });
    // Catalog only reads: its product pages, none of the others' writes.
    expect(catalog.writeRequests).toBe(0);
    expect(catalog.requests).toBe(
      harness.sandbox.requestLog.entries().filter((e) => e.method === 'GET' && e.path.endsWith('/products'))
        .length,
    );
    // A caller's live counter sees both runs.
    expect(live).toEqual({ total: 5, writes: 5 });
  });

  it('types the outcome: a bug is permanent `internal`, logged with its stack, in every pipeline', async () => {
    harness = await createHarness({});
    const log = captureLog();
    const ctx = { ...brokenErp(await harness.context()), logger: log.logger };
    for (const name of ['stock', 'prices', 'feedback', 'erp-orders'] as const) {
      const summary = await runPipeline(name, ctx, RUN);
      expect(summary.error).toEqual({
        code: 'internal',
        kind: 'permanent',
        message: 'boom: a bug in the adapter',
      });
      const line = log.lines().find((l) => l.pipeline === name && l.msg === 'run failed');
      expect(line).toBeDefined();
      expect((line!.err as { stack?: string }).stack).toMatch(/TypeError: boom[\s\S]*\n\s+at /);
      // The run record says why.
      expect(ctx.store.runs.last(name)).toMatchObject({
        status: 'failed',
        error: 'internal: boom: a bug in the adapter',
      });
    }
  });

  it('takes every real run’s lease with the sync.lease settings (orders and catalog too)', async () => {
    harness = await createHarness({});
    const ctx = await harness.context({ lease: { ttlSeconds: 30, waitSeconds: 0 } });
    for (const name of PIPELINE_ORDER) {
      expect(ctx.store.leases.acquire(`sync:${name}`, 'other-host:1:x', 60_000)).toBe(true);
      const started = Date.now();
      const summary = await runPipeline(name, ctx, RUN);
      // Waited `waitSeconds: 0`, not a hard-coded two minutes.
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(summary.error).toMatchObject({ code: 'erp_unavailable', kind: 'retryable' });
      expect(summary.error?.message).toContain(`another run holds "sync:${name}"`);
      ctx.store.leases.release(`sync:${name}`, 'other-host:1:x');
    }
  });

  it('runs a dry run without the lease and without a run record, for every pipeline', async () => {
    harness = await createHarness({ extraProducts: 3 });
    harness.writeStock([1, 2, 3].map((n) => ({ sku: bulkSku(n), quantity: n })));
    const ctx = await harness.context({ lease: { ttlSeconds: 30, waitSeconds: 0 } });
    const events: ProgressEvent[] = [];
    for (const name of PIPELINE_ORDER) {
      ctx.store.leases.acquire(`sync:${name}`, 'other-host:1:x', 60_000);
      const summary = await runPipeline(name, ctx, {
        full: false,
        dryRun: true,
        onProgress: (e) => events.push(e),
      });
      expect(summary.error).toBeUndefined();
      expect(summary.dryRun).toBe(true);
      expect(ctx.store.runs.last(name)).toBeUndefined();
      expect(ctx.store.leases.holder(`sync:${name}`)?.owner).toBe('other-host:1:x');
      // The frame's last progress event closes every run.
      expect(events.at(-1)).toMatchObject({ pipeline: name, done: true });
    }
    expect(harness.writes()).toEqual([]);
  });
});
