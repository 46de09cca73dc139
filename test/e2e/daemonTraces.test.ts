import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../../dev/daemonProcess.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlpReceiver.js';
import { platformStock, startDaemonWorld, type DaemonWorld } from '../support/daemonWorld.js';

let world: DaemonWorld | undefined;
let receiver: OtlpReceiver | undefined;
afterEach(async () => {
  await world?.close();
  await receiver?.close();
  world = undefined;
  receiver = undefined;
});

const CLIENT = 3;
const bulk = (n: number): string => `BULK-${String(n).padStart(6, '0')}`;

/** The span's parent, grandparent, ... as far as the spans received go. */
function ancestors(span: ReceivedSpan, byId: Map<string, ReceivedSpan>): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (let at = byId.get(span.parentSpanId); at; at = byId.get(at.parentSpanId)) out.push(at);
  return out;
}

describe('OpenTelemetry traces of a daemon run', () => {
  it('exports one trace per run: trigger, run, scan, each push job and its HTTP calls, and logs its trace id', async () => {
    receiver = await startOtlpReceiver();
    world = await startDaemonWorld({
      extraProducts: 3,
      // Hourly: the catch-up run at start is the only one within the test.
      schedules: { stock: '0 0 1 1 *', orders: 'off' },
      config: { sync: { batchSize: 1 }, log: { level: 'debug' } },
    });
    const rows = [1, 2, 3].map((n) => ({ sku: bulk(n), quantity: 10 + n }));
    world.writeStock(rows);
    world.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.url;
    const daemon = await world.start();
    await eventually('the stock on the platform', async () => {
      const stock = await platformStock(world!.api);
      return rows.every((row) => stock.get(row.sku) === row.quantity);
    });
    // SIGTERM flushes the spans still buffered before the process ends.
    daemon.kill('SIGTERM');
    expect((await daemon.exited).code).toBe(0);

    expect(receiver.refused()).toEqual([]);
    const spans = receiver.spans();
    expect(new Set(spans.map((s) => s.service))).toEqual(new Set(['erp-sync']));
    const triggers = spans.filter((s) => s.name === 'trigger stock');
    expect(triggers).toHaveLength(1);
    const trigger = triggers[0]!;
    expect(trigger.parentSpanId).toBe('');
    expect(trigger.attributes).toMatchObject({ 'erp_sync.pipeline': 'stock', 'erp_sync.trigger': 'start' });

    const trace = spans.filter((s) => s.traceId === trigger.traceId);
    const byId = new Map(trace.map((s) => [s.spanId, s]));
    const named = (name: string) => trace.filter((s) => s.name === name);
    // BullMQ's own spans carry the trace from the trigger to the job, and from the scan to each push job.
    expect(trace.some((s) => s.name.startsWith('add ') && s.attributes['bullmq.queue.name'] === 'runs')).toBe(
      true,
    );
    expect(
      trace.filter((s) => s.name.startsWith('process ') && s.attributes['bullmq.queue.name'] === 'pushes'),
    ).toHaveLength(3);

    const [scan] = named('scan stock');
    expect(scan).toBeDefined();
    const scanLine = ancestors(scan!, byId).map((s) => s.name);
    expect(scanLine).toContain('run stock');
    expect(scanLine.at(-1)).toBe('trigger stock');

    const pushes = named('push stock');
    expect(pushes).toHaveLength(3);
    for (const push of pushes) {
      const line = ancestors(push, byId);
      expect(line.map((s) => s.name)).toContain('scan stock');
      expect(line.at(-1)).toBe(trigger);
    }

    // Each bulk request is an HTTP client span whose parent is the push job that sent it.
    const requests = trace.filter(
      (s) => s.kind === CLIENT && String(s.attributes['url.full']).includes('/stock/bulk'),
    );
    expect(requests).toHaveLength(3);
    for (const request of requests) {
      expect(request.attributes['http.request.method']).toBe('PATCH');
      expect(request.attributes['http.response.status_code']).toBe(200);
      expect(byId.get(request.parentSpanId)?.name).toBe('push stock');
    }
    expect(new Set(requests.map((r) => r.parentSpanId)).size).toBe(3);
    // No key or secret in any span.
    expect(JSON.stringify(spans)).not.toContain(world.sandbox.keys.primary);

    // Every log line within the run carries the trace id; lines outside a run carry none.
    const lines = daemon
      .stderr()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { msg: string; trace_id?: string; span_id?: string });
    const traced = lines.filter((line) => line.trace_id === trigger.traceId);
    expect(traced.length).toBeGreaterThan(0);
    for (const line of traced) expect(byId.has(line.span_id!), line.msg).toBe(true);
    expect(lines.find((line) => line.msg === 'OpenTelemetry traces on')?.trace_id).toBeUndefined();
  }, 90_000);
});
