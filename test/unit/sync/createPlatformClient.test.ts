import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config.js';
import { silentLogger } from '../../../src/logger.js';
import { createPlatformClient } from '../../../src/sync/createPlatformClient.js';
import { PROJECT_ROOT } from '../../support/cli.js';

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
  });
}

describe('the API configuration to client mapping', () => {
  it('lives in one function (check and the sync context used to copy it)', () => {
    const mapping = /apiKey:\s*\w+(?:\.\w+)*\.api\.apiKey/;
    const copies = sources(join(PROJECT_ROOT, 'src'))
      .filter((file) => mapping.test(readFileSync(file, 'utf8')))
      .map((file) => relative(PROJECT_ROOT, file));
    expect(copies).toEqual([]);
  });

  it("takes every setting from the configuration, and the caller's bounds over them", async () => {
    const config = parseConfig({
      api: { baseUrl: 'http://127.0.0.1:9/api/v2', apiKey: 'k', retries: 7, timeoutMs: 60_000 },
      erp: { type: 'file', path: '.' },
    });
    const started = Date.now();
    const client = createPlatformClient(config.api, silentLogger(), { retries: 0, timeoutMs: 1_000 });
    try {
      await expect(client.account.get()).rejects.toThrow(/ECONNREFUSED/);
    } finally {
      await client.close();
    }
    expect(Date.now() - started).toBeLessThan(5_000); // no 7 retries with back-off
  });
});
