import type CliProgress from 'cli-progress';
import type { Logger } from 'pino';
import type { ProgressEvent } from '../sync/frame/types.js';

export interface ProgressReporter {
  onProgress(event: ProgressEvent): void;
  stop(): void;
}

export interface ProgressOptions {
  /** A terminal gets a live line; anything else gets a log line every intervalMs. */
  tty: boolean;
  stream?: NodeJS.WritableStream;
  logger: Logger;
  intervalMs?: number;
}

/**
 * Progress of long runs: a live line on a terminal, periodic log lines otherwise. The bar's library
 * (and the readline it loads) is loaded only for a terminal: a piped or `--json` run starts without it.
 */
export async function createProgressReporter(options: ProgressOptions): Promise<ProgressReporter> {
  if (!options.tty) return logReporter(options);
  const { default: cliProgress } = await import('cli-progress');
  return barReporter(options, cliProgress);
}

function barReporter(options: ProgressOptions, cliProgress: typeof CliProgress): ProgressReporter {
  let bar: CliProgress.SingleBar | undefined;
  let current = '';
  const stop = (): void => {
    bar?.stop();
    bar = undefined;
  };
  return {
    onProgress(event) {
      if (event.pipeline !== current) {
        stop();
        current = event.pipeline;
      }
      const payload = {
        pipeline: event.pipeline,
        read: event.read,
        sent: event.sent,
        applied: event.applied,
      };
      if (!bar) {
        bar = new cliProgress.SingleBar(
          {
            format: '{pipeline} | read {read} | sent {sent} | applied {applied} | {duration_formatted}',
            stream: options.stream ?? process.stderr,
            hideCursor: true,
            clearOnComplete: false,
            fps: 5,
            // We only draw when the caller said it is a terminal; do not second-guess the stream.
            noTTYOutput: true,
          },
          cliProgress.Presets.shades_classic,
        );
        bar.start(1, 0, payload);
      }
      bar.update(0, payload);
      if (event.done) stop();
    },
    stop,
  };
}

function logReporter(options: ProgressOptions): ProgressReporter {
  const interval = options.intervalMs ?? 10_000;
  let last = Date.now();
  return {
    onProgress(event) {
      const now = Date.now();
      if (event.done || now - last < interval) return;
      last = now;
      options.logger.info(
        { read: event.read, sent: event.sent, applied: event.applied },
        `${event.pipeline}: in progress`,
      );
    },
    stop() {},
  };
}
