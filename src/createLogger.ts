import { pino, type DestinationStream, type Logger } from 'pino';
import { SECRET_CONFIG_PATHS } from './config/secretPaths.js';
import { traceLogFields } from './tracing/activeTracing.js';

// pino (about 30 files) is imported here, not in logger.ts: the modules that only pass a logger on,
// and `check` (a silent logger), import that one and never load it. In dist/ it is bundled
// (dev/buildDist.ts), without its transports.

/** Secrets of the transport, whatever the configuration says: the headers that carry the key. */
const TRANSPORT_SECRETS = [
  'headers.authorization',
  'headers["x-api-key"]',
  '*.headers.authorization',
  '*.headers["x-api-key"]',
  'authorization',
  'connectionString',
  '*.connectionString',
];

/**
 * Paths pino blanks out wherever they appear; the API key and passwords never reach a log line.
 * Each configuration secret (SECRET_CONFIG_PATHS) under its whole path (at the top or one level
 * down) and, logged on its own or one level down, under its key name.
 */
export const REDACTED_PATHS = [
  ...new Set([
    ...SECRET_CONFIG_PATHS.flatMap((path) => {
      const key = path[path.length - 1]!;
      return [path.join('.'), `*.${path.join('.')}`, key, `*.${key}`];
    }),
    ...TRANSPORT_SECRETS,
  ]),
];

export interface LoggerOptions {
  /** From the validated configuration (`log.level`, env LOG_LEVEL): config.ts reads the environment. */
  level?: string;
  /** Defaults to stderr so that stdout stays free for command output. */
  destination?: DestinationStream;
  /**
   * Short readable lines instead of JSON: for a person at a terminal, where JSON lines would sit
   * above the result table. Machines (no terminal, --json) get JSON.
   */
  pretty?: boolean;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  return pino(
    {
      level: options.level ?? 'info',
      base: { app: 'erp-sync' },
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
      // With OpenTelemetry on, each line logged within a traced run carries its trace_id and span_id.
      mixin: traceLogFields,
    },
    options.pretty
      ? readableLines(options.destination ?? process.stderr)
      : (options.destination ?? pino.destination(2)),
  );
}

const LEVEL_NAMES: Record<number, string> = {
  10: 'trace',
  20: 'debug',
  30: 'info',
  40: 'warning',
  50: 'error',
  60: 'fatal',
};
const NOT_SHOWN = new Set([
  'level',
  'time',
  'app',
  'msg',
  'pid',
  'hostname',
  'module',
  'trace_id',
  'span_id',
]);

/** A destination that rewrites each JSON line (already redacted) as one readable line. */
function readableLines(target: { write(text: string): unknown }): DestinationStream {
  return { write: (line: string) => void target.write(formatLogLine(line)) };
}

/** `warning [erp-file]: several stock files: using stock.csv (ignored: ["stock-old.csv"])` */
export function formatLogLine(line: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  const level = LEVEL_NAMES[Number(entry.level)] ?? String(entry.level);
  const where = typeof entry.module === 'string' ? ` [${entry.module}]` : '';
  const details = Object.entries(entry)
    .filter(([key]) => !NOT_SHOWN.has(key))
    .map(([key, value]) => `${key}: ${errorText(value) ?? JSON.stringify(value)}`);
  return `${level}${where}: ${String(entry.msg ?? '')}${details.length ? ` (${details.join(', ')})` : ''}\n`;
}

function errorText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { message?: unknown }).message === 'string'
  )
    return (value as { message: string }).message;
  return undefined;
}
