import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createProgressReporter } from '../../../src/cli/progress.js';

function capture(): { stream: Writable; text: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  return { stream, text: () => text };
}

describe('progress reporting', () => {
  it('logs a line at most once per interval when not on a terminal', async () => {
    const out = capture();
    const logger = pino({ level: 'info' }, out.stream);
    const reporter = await createProgressReporter({ tty: false, logger, intervalMs: 30 });
    reporter.onProgress({ pipeline: 'stock', read: 1, sent: 0, applied: 0 });
    await new Promise((resolve) => setTimeout(resolve, 40));
    reporter.onProgress({ pipeline: 'stock', read: 500, sent: 500, applied: 0 });
    reporter.onProgress({ pipeline: 'stock', read: 600, sent: 500, applied: 0 });
    reporter.stop();
    const lines = out
      .text()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ msg: 'stock: in progress', read: 500, sent: 500 });
  });

  it('draws a live line with the counts on a terminal', async () => {
    const out = capture();
    const reporter = await createProgressReporter({
      tty: true,
      logger: pino({ level: 'silent' }),
      stream: out.stream,
    });
    reporter.onProgress({ pipeline: 'prices', read: 42, sent: 40, applied: 39 });
    reporter.onProgress({ pipeline: 'prices', read: 42, sent: 40, applied: 40, done: true });
    expect(out.text()).toContain('prices | read 42 | sent 40 | applied 40');
  });
});
