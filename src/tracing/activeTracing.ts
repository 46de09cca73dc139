import type { Telemetry } from 'bullmq';

export type SpanAttributes = Record<string, string | number | boolean>;

/**
 * What the rest of the daemon sees of OpenTelemetry, once `startTracing` has set it up. Kept free
 * of any @opentelemetry import: without OTEL_EXPORTER_OTLP_ENDPOINT nothing of it is loaded, and
 * each hook below is a no-op.
 */
export interface Tracing {
  /** Runs `fn` in a new span, a child of the active one (or a new trace); the span ends with fn. */
  inSpan<T>(name: string, attributes: SpanAttributes, fn: () => Promise<T>): Promise<T>;
  /** The active span's ids, for a log line. */
  logFields(): { trace_id?: string; span_id?: string };
  /** BullMQ's own spans (add, process, ...) for queues, workers and flow producers. */
  readonly bullmq: Telemetry;
  /** Sends the spans still buffered and stops. */
  shutdown(): Promise<void>;
}

let active: Tracing | null = null;

export function setActiveTracing(tracing: Tracing | null): void {
  active = tracing;
}

/** `fn` in a span named `name` when tracing is on; just `fn` otherwise. */
export function inSpan<T>(name: string, attributes: SpanAttributes, fn: () => Promise<T>): Promise<T> {
  return active ? active.inSpan(name, attributes, fn) : fn();
}

/** pino's mixin: the trace and span id of the active span in every line logged within it. */
export function traceLogFields(): object {
  return active ? active.logFields() : {};
}

/**
 * The one place that builds BullMQ's `telemetry` option: spread it into the options of every
 * Queue, Worker and FlowProducer (`{ connection, ...queueTelemetry() }`).
 */
export function queueTelemetry(): { telemetry?: Telemetry } {
  return active ? { telemetry: active.bullmq } : {};
}
