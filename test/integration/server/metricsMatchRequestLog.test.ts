import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/logger.js';
import { createMetrics, routeTemplate, startOpsServer, type OpsServer } from '../../../src/server/index.js';
import { closeSyncContext, createSyncContext } from '../../../src/sync/context.js';
import { runPipeline } from '../../../src/sync/runPipeline.js';
import type { SyncContext } from '../../../src/sync/frame/types.js';
import { bulkSku, createHarness, type Harness } from '../../support/syncHarness.js';

// The client's per-attempt hook feeds the metrics; the sandbox logs every request it received.
// Under 429s and 5xx (so with retries), both must count the same requests, per method, route
// template and status.

let harness: Harness | undefined;
let server: OpsServer | undefined;
let ctx: SyncContext | undefined;

afterEach(async () => {
  await server?.close();
  if (ctx) await closeSyncContext(ctx);
  await harness?.close();
  server = undefined;
  ctx = undefined;
  harness = undefined;
});

/** `erp_sync_api_requests_total` samples of a /metrics text: "METHOD route status" -> count. */
function apiRequestCounts(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of text.matchAll(
    /^erp_sync_api_requests_total\{method="([^"]+)",route="([^"]+)",status="([^"]+)"\} (\d+)$/gm,
  )) {
    out.set(`${m[1]} ${m[2]} ${m[3]}`, Number(m[4]));
  }
  return out;
}

describe('/metrics API request counts', { timeout: 120_000 }, () => {
  it('match the sandbox request log, retries and 429s included', async () => {
    harness = await createHarness({
      extraProducts: 300,
      sync: { batchSize: 20, catalog: { perPage: 50 } },
    });
    harness.writeStock(Array.from({ length: 300 }, (_, i) => ({ sku: bulkSku(i + 1), quantity: i % 17 })));
    harness.writePrices(
      Array.from({ length: 300 }, (_, i) => ({ sku: bulkSku(i + 1), price: 10 + i, vat_rate: 19 })),
    );
    const metrics = createMetrics();
    ctx = await createSyncContext(
      { ...harness.config, api: { ...harness.config.api, retries: 6, deadlineMs: 60_000 } },
      silentLogger(),
      { onResponse: (info) => metrics.recordApiResponse(info) },
    );
    server = await startOpsServer({
      host: '127.0.0.1',
      port: 0,
      metrics,
      readiness: async () => ({ ready: true, reasons: [] }),
      queues: [],
      logger: silentLogger(),
    });
    harness.sandbox.setFaults('rate_limit=8/s,error_rate=0.2');
    harness.sandbox.requestLog.clear();
    for (const name of ['catalog', 'stock', 'prices'] as const) {
      const summary = await runPipeline(name, ctx, { full: false, dryRun: false });
      metrics.recordRun(summary);
    }
    harness.sandbox.setFaults(null);

    const expected = new Map<string, number>();
    for (const entry of harness.sandbox.requestLog.entries()) {
      const key = `${entry.method} ${routeTemplate(entry.path)} ${entry.status ?? 'none'}`;
      expected.set(key, (expected.get(key) ?? 0) + 1);
    }
    const text = await (await fetch(`${server.url}/metrics`)).text();
    const counted = apiRequestCounts(text);
    expect(Object.fromEntries(counted)).toEqual(Object.fromEntries(expected));

    // the faults really happened, and every route is a template of the spec
    const statuses = [...counted.keys()].map((key) => key.split(' ')[2]);
    expect(statuses).toContain('429');
    expect(statuses.some((s) => /^5\d\d$/.test(s ?? ''))).toBe(true);
    expect([...counted.keys()].map((key) => key.split(' ')[1])).toEqual(
      expect.arrayContaining(['/products', '/products/stock/bulk', '/products/prices/bulk']),
    );
    expect(text).not.toContain('/other');
    expect(text).not.toContain(harness.config.api.apiKey);

    const durations = /^erp_sync_api_request_duration_seconds_count\{[^}]*\} (\d+)$/gm;
    const observed = [...text.matchAll(durations)].reduce((sum, m) => sum + Number(m[1]), 0);
    expect(observed).toBe(harness.sandbox.requestLog.entries().length);
    expect(text).toMatch(/^erp_sync_runs_total\{pipeline="stock",status="(ok|failed)"\} 1$/m);
  });
});
