import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../support/cli.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../../../support/otlpReceiver.js';
import type { TrytonServer } from '../../../support/trytonServer.js';
import { startTryton, startTrytonWorld, type TrytonWorld } from '../../../support/trytonWorld.js';

let tryton: TrytonServer;
let world: TrytonWorld;
let receiver: OtlpReceiver;

beforeAll(async () => {
  tryton = await startTryton();
  world = await startTrytonWorld(tryton);
  receiver = await startOtlpReceiver();
}, 600_000);
afterAll(async () => {
  await receiver?.close();
  await world?.close();
  await tryton?.stop();
});

const CLIENT = 3;

describe('OpenTelemetry traces of run-once against a real Tryton', { timeout: 120_000 }, () => {
  it('puts the JSON-RPC calls to the ERP and the calls to the platform under the run span', async () => {
    const result = await runCli(
      ['run-once', '--only', 'stock', '--config', world.configPath],
      { ...world.env, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url },
      { timeoutMs: 90_000 },
    );
    expect(result.code, result.stderr).toBe(0);
    // run-once sends its spans before it exits.
    const spans = receiver.spans();
    const runs = spans.filter((s) => s.name === 'run stock');
    expect(runs).toHaveLength(1);
    const run = runs[0]!;
    expect(run.parentSpanId).toBe('');
    expect(run.attributes).toMatchObject({ 'erp_sync.trigger': 'run-once' });

    const trace = spans.filter((s) => s.traceId === run.traceId);
    const byId = new Map(trace.map((s) => [s.spanId, s]));
    const underRun = (span: ReceivedSpan): boolean => {
      for (let at = byId.get(span.parentSpanId); at; at = byId.get(at.parentSpanId))
        if (at === run) return true;
      return false;
    };
    const calls = trace.filter((s) => s.kind === CLIENT);
    const erp = calls.filter((s) => String(s.attributes['url.full']).startsWith(tryton.url));
    const platform = calls.filter((s) => String(s.attributes['url.full']).startsWith(world.sandbox.url));
    expect(erp.length).toBeGreaterThan(0);
    expect(platform.some((s) => String(s.attributes['url.path']).endsWith('/stock/bulk'))).toBe(true);
    for (const call of [...erp, ...platform]) expect(underRun(call), call.name).toBe(true);
    expect(erp.every((s) => s.attributes['http.request.method'] === 'POST')).toBe(true);
    // Neither the Tryton password nor the API key (both sent in headers or bodies) is in any span.
    const text = JSON.stringify(spans);
    expect(text).not.toContain(tryton.password);
    expect(text).not.toContain(world.sandbox.keys.primary);
  }, 120_000);
});
