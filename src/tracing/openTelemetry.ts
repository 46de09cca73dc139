import { context, diag, propagation, SpanStatusCode, trace, type DiagLogger } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { BullMQOtel } from 'bullmq-otel';
import type { Logger } from 'pino';
import type { Tracing } from './activeTracing.js';

/** What a BullMQ processor throws to move its job (wait for children, later, ...): not a failure. */
const JOB_CONTROL = new Set(['WaitingChildrenError', 'WaitingError', 'DelayedError', 'RateLimitError']);

export interface OpenTelemetryOptions {
  /** The collector's base URL (OTEL_EXPORTER_OTLP_ENDPOINT): spans go to `<endpoint>/v1/traces`. */
  endpoint: string;
  version: string;
  logger: Logger;
  /** An export problem is logged again after this long at the earliest. */
  repeatMs?: number;
}

/**
 * The OpenTelemetry SDK, registered globally: an AsyncLocalStorage context (so a span follows
 * the awaits of a job), W3C trace context (BullMQ carries it from a job's producer to its worker
 * in the job's options, and HTTP requests send it as `traceparent`), spans batched to the OTLP
 * collector over HTTP, undici's requests (the platform client and the Tryton client) as client
 * spans when they happen within a traced operation.
 */
export function createOpenTelemetry(options: OpenTelemetryOptions): Tracing {
  const { endpoint, version, logger } = options;
  diag.setLogger(exportProblems(logger, options.repeatMs ?? 60_000));
  // An export that gets no answer in time is dropped (the exporter retries within this time).
  const exporter = new OTLPTraceExporter({
    url: `${endpoint.replace(/\/+$/, '')}/v1/traces`,
    timeoutMillis: 5_000,
  });
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'erp-sync', 'service.version': version }),
    spanProcessors: [new BatchSpanProcessor({ exporter })],
  });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  const undici = new UndiciInstrumentation({ requireParentforSpans: true });
  undici.setTracerProvider(provider);
  undici.enable();
  const tracer = provider.getTracer('erp-sync', version);

  return {
    bullmq: new BullMQOtel({ tracerName: 'bullmq', version }),
    inSpan(name, attributes, fn) {
      return tracer.startActiveSpan(name, { attributes }, async (span) => {
        try {
          return await fn();
        } catch (error) {
          if (!JOB_CONTROL.has((error as Error).name)) {
            span.recordException(error as Error);
            span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
          }
          throw error;
        } finally {
          span.end();
        }
      });
    },
    logFields() {
      const span = trace.getActiveSpan()?.spanContext();
      return span && trace.isSpanContextValid(span) ? { trace_id: span.traceId, span_id: span.spanId } : {};
    },
    async shutdown() {
      undici.disable();
      try {
        await provider.shutdown();
      } catch (error) {
        logger.warn(
          { module: 'tracing', err: (error as Error).message },
          'OpenTelemetry: the last spans could not be sent',
        );
      } finally {
        trace.disable();
        propagation.disable();
        context.disable();
        diag.disable();
      }
    },
  };
}

/** The SDK's own complaints (the collector unreachable, a refused export) as warnings, once a while. */
function exportProblems(logger: Logger, repeatMs: number): DiagLogger {
  let lastAt = 0;
  const warn = (message: string, ...args: unknown[]): void => {
    const now = Date.now();
    if (now - lastAt < repeatMs) return;
    lastAt = now;
    const detail = args.map((a) => (a instanceof Error ? a.message : String(a))).join(' ');
    logger.warn({ module: 'tracing', detail }, `OpenTelemetry: ${message}`);
  };
  const ignore = (): void => undefined;
  return { error: warn, warn, info: ignore, debug: ignore, verbose: ignore };
}
