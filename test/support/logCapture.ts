import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';

export interface CapturedLog {
  logger: Logger;
  /** Everything written so far, as the raw JSON lines. */
  text(): string;
  lines(): Record<string, unknown>[];
}

/** A pino logger at level trace writing to memory, to check what the client logs. */
export function captureLog(): CapturedLog {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString('utf8'));
      done();
    },
  });
  const logger = pino({ level: 'trace' }, stream);
  const text = () => chunks.join('');
  return {
    logger,
    text,
    lines: () =>
      text()
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}
