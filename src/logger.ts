import { pino, type Logger, type DestinationStream } from 'pino';

export type { Logger } from 'pino';

/** Paths pino blanks out wherever they appear; the API key and passwords never reach a log line. */
export const REDACTED_PATHS = [
  'apiKey',
  '*.apiKey',
  'api.apiKey',
  'password',
  '*.password',
  'headers.authorization',
  'headers["x-api-key"]',
  '*.headers.authorization',
  '*.headers["x-api-key"]',
  'authorization',
  'connectionString',
  '*.connectionString',
];

export interface LoggerOptions {
  /** From the validated configuration (`log.level`, env LOG_LEVEL): config.ts reads the environment. */
  level?: string;
  /** Defaults to stderr so that stdout stays free for command output. */
  destination?: DestinationStream;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  return pino(
    {
      level: options.level ?? 'info',
      base: { app: 'erp-sync' },
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    options.destination ?? pino.destination(2),
  );
}

/** A logger that drops everything: for library callers who pass none. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
