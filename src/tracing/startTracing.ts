import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { VERSION } from '../version.js';
import { setActiveTracing } from './activeTracing.js';

/**
 * Turns OpenTelemetry traces on when the configuration names a collector (env
 * OTEL_EXPORTER_OTLP_ENDPOINT), loading the SDK only then; returns what flushes and stops it.
 */
export async function startTracing(config: Config, logger: Logger): Promise<() => Promise<void>> {
  const endpoint = config.tracing.otlpEndpoint;
  if (!endpoint) return async () => undefined;
  const { createOpenTelemetry } = await import('./openTelemetry.js');
  const tracing = createOpenTelemetry({ endpoint, version: VERSION, logger });
  setActiveTracing(tracing);
  const url = new URL(endpoint);
  logger.info({ module: 'tracing', collector: `${url.origin}${url.pathname}` }, 'OpenTelemetry traces on');
  return async () => {
    setActiveTracing(null);
    await tracing.shutdown();
  };
}
