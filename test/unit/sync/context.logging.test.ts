import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config.js';
import { createLogger } from '../../../src/createLogger.js';
import { closeSyncContext, createSyncContext } from '../../../src/sync/context.js';

const dir = mkdtempSync(join(tmpdir(), 'erp-sync-logging-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function capture(): { lines: string[]; destination: { write(line: string): void } } {
  const lines: string[] = [];
  return { lines, destination: { write: (line: string) => void lines.push(line) } };
}

describe('log lines', () => {
  const saved = process.env.LOG_LEVEL;
  afterEach(() => {
    if (saved === undefined) delete process.env.LOG_LEVEL;
    else process.env.LOG_LEVEL = saved;
  });

  it('carry "module" once, the adapter\'s own, through the sync context', async () => {
    const { lines, destination } = capture();
    const config = parseConfig({
      api: { baseUrl: 'http://127.0.0.1:9/api/v2', apiKey: 'k' },
      erp: { type: 'file', path: dir },
      store: { path: ':memory:' },
    });
    const ctx = await createSyncContext(config, createLogger({ level: 'debug', destination }));
    try {
      for await (const row of ctx.erp.stock()) expect(row).toBeUndefined(); // no stock file: nothing
    } finally {
      await closeSyncContext(ctx);
    }
    const line = lines.find((l) => l.includes('no input file'));
    expect(line).toBeDefined();
    expect(line!.match(/"module":/g)).toHaveLength(1);
    expect(JSON.parse(line!)).toMatchObject({ module: 'erp-file' });
  });

  it('take their level from the configuration only: the logger does not read LOG_LEVEL itself', () => {
    process.env.LOG_LEVEL = 'debug';
    const { lines, destination } = capture();
    const logger = createLogger({ destination });
    logger.debug('hidden');
    logger.info('shown');
    expect(lines.map((l) => (JSON.parse(l) as { msg: string }).msg)).toEqual(['shown']);
  });
});
