import { execFile } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../support/cli.js';

const run = promisify(execFile);
const root = mkdtempSync(join(tmpdir(), 'erp-sync-bin-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A checkout in miniature: bin/, a dist/ and a src/ whose main files say which one ran. */
function checkout(): { dist: string; source: string } {
  mkdirSync(join(root, 'bin'), { recursive: true });
  mkdirSync(join(root, 'dist', 'cli'), { recursive: true });
  mkdirSync(join(root, 'src', 'cli'), { recursive: true });
  copyFileSync(join(PROJECT_ROOT, 'bin', 'erp-sync.js'), join(root, 'bin', 'erp-sync.js'));
  writeFileSync(join(root, 'package.json'), '{ "type": "module" }\n');
  symlinkSync(join(PROJECT_ROOT, 'node_modules'), join(root, 'node_modules'));
  const dist = join(root, 'dist', 'cli', 'main.js');
  const source = join(root, 'src', 'cli', 'main.ts');
  writeFileSync(dist, "process.stdout.write('dist\\n');\n");
  writeFileSync(source, "const from: string = 'src';\nprocess.stdout.write(`${from}\\n`);\n");
  return { dist, source };
}

const ran = async (): Promise<string> =>
  (await run(process.execPath, [join(root, 'bin', 'erp-sync.js')])).stdout.trim();

describe('bin/erp-sync.js', () => {
  it(
    'runs dist/ only while it is at least as new as src/, the sources otherwise',
    { timeout: 30_000 },
    async () => {
      const { dist, source } = checkout();
      const hourAgo = new Date(Date.now() - 3_600_000);
      utimesSync(source, hourAgo, hourAgo);
      expect(await ran()).toBe('dist');
      // A source edited after the build: the stale dist/ must not run.
      utimesSync(dist, new Date(Date.now() - 7_200_000), new Date(Date.now() - 7_200_000));
      expect(await ran()).toBe('src');
      rmSync(join(root, 'dist'), { recursive: true });
      expect(await ran()).toBe('src');
    },
  );
});
