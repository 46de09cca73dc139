import { describe, expect, it } from 'vitest';
import { register } from 'prom-client';
import { createMetrics } from '../../../src/server/createMetrics.js';
import { isLoopbackHost } from '../../../src/server/isLoopbackHost.js';
import type { PipelineName } from '../../../src/domain/pipelineNames.js';
import { emptySummary } from '../../../src/sync/frame/summary.js';

const run = (pipeline: PipelineName, fields: Record<string, unknown> = {}) => ({
  ...emptySummary(pipeline, { full: false, dryRun: false }),
  ...fields,
});

describe('createMetrics', () => {
  it('counts a failed run without moving the last success time', async () => {
    const metrics = createMetrics();
    metrics.recordRun(run('prices', { read: 3 }), new Date(1_700_000_000_000));
    metrics.recordRun(
      run('prices', { read: 2, failed: 2, error: { code: 'api_server', kind: 'retryable', message: '503' } }),
    );
    const text = await metrics.render();
    expect(text).toContain('erp_sync_runs_total{pipeline="prices",status="ok"} 1');
    expect(text).toContain('erp_sync_runs_total{pipeline="prices",status="failed"} 1');
    expect(text).toContain('erp_sync_items_total{pipeline="prices",outcome="read"} 5');
    expect(text).toContain('erp_sync_items_total{pipeline="prices",outcome="failed"} 2');
    expect(text).toContain('erp_sync_last_success_timestamp_seconds{pipeline="prices"} 1700000000');
  });

  it('counts no items for a dry run (nothing was sent)', async () => {
    const metrics = createMetrics();
    metrics.recordRun({ ...run('stock', { read: 4, sent: 4 }), dryRun: true });
    const text = await metrics.render();
    expect(text).not.toContain('erp_sync_items_total{');
    expect(text).toContain('erp_sync_runs_total{pipeline="stock",status="ok"} 1');
  });

  it('labels an attempt without an answer "none" and a concrete path by its template', async () => {
    const metrics = createMetrics();
    metrics.recordApiResponse({
      method: 'GET',
      path: '/orders/555',
      route: '/orders/{id}',
      status: null,
      durationMs: 30_000,
      attempt: 2,
      errorCode: 'api_timeout',
    });
    const text = await metrics.render();
    expect(text).toContain('erp_sync_api_requests_total{method="GET",route="/orders/{id}",status="none"} 1');
    expect(text).toContain(
      'erp_sync_api_request_duration_seconds_bucket{le="30",method="GET",route="/orders/{id}"} 1',
    );
    // the concrete id never becomes a label value (the process metrics' numbers may contain 555)
    expect(text).not.toMatch(/"[^"]*\/orders\/555/);
  });

  it('keeps its own registry: two instances never share counts, the global one stays empty', async () => {
    const a = createMetrics();
    const b = createMetrics();
    a.setPaused(true);
    expect(await a.render()).toContain('erp_sync_paused 1');
    expect(await b.render()).toContain('erp_sync_paused 0');
    expect(await register.metrics()).not.toContain('erp_sync_');
  });

  it('sets every queue state, missing ones as 0', async () => {
    const metrics = createMetrics();
    metrics.setQueueJobs('stock', { waiting: 3, failed: 1 });
    const text = await metrics.render();
    expect(text).toContain('erp_sync_queue_jobs{queue="stock",state="waiting"} 3');
    expect(text).toContain('erp_sync_queue_jobs{queue="stock",state="failed"} 1');
    expect(text).toContain('erp_sync_queue_jobs{queue="stock",state="active"} 0');
  });
});

describe('isLoopbackHost', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.1.2.3', true],
    ['localhost', true],
    ['::1', true],
    ['[::1]', true],
    ['0.0.0.0', false],
    ['::', false],
    ['10.0.0.5', false],
    ['erp-sync.internal', false],
    ['127.0.0.1.example.com', false],
  ])('%s -> %s', (host, loopback) => {
    expect(isLoopbackHost(host)).toBe(loopback);
  });
});
