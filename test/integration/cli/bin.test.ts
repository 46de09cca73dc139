import { execFile } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN_NODE_ENV, BIN_NODE_FLAGS } from '../../../dev/nodeFlags.js';
import { PROJECT_ROOT } from '../../support/cli.js';

const run = promisify(execFile);
const root = mkdtempSync(join(tmpdir(), 'erp-sync-bin-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A copy in miniature: bin/, a dist/ and a src/ whose main files say which one ran. */
function layout(engines = '>=22.22.0'): void {
  rmSync(root, { recursive: true, force: true });
  mkdirSync(join(root, 'bin'), { recursive: true });
  mkdirSync(join(root, 'dist'), { recursive: true });
  mkdirSync(join(root, 'src', 'cli'), { recursive: true });
  copyFileSync(join(PROJECT_ROOT, 'bin', 'erp-sync.js'), join(root, 'bin', 'erp-sync.js'));
  writeFileSync(join(root, 'package.json'), JSON.stringify({ type: 'module', engines: { node: engines } }));
  symlinkSync(join(PROJECT_ROOT, 'node_modules'), join(root, 'node_modules'));
  writeFileSync(join(root, 'dist', 'main.js'), "process.stdout.write('dist\\n');\n");
  writeFileSync(
    join(root, 'src', 'cli', 'main.ts'),
    "const from: string = 'src';\nprocess.stdout.write(`${from}\\n`);\n",
  );
}

const ran = async (): Promise<string> =>
  (await run(process.execPath, [join(root, 'bin', 'erp-sync.js')])).stdout.trim();

describe('bin/erp-sync.js', () => {
  it(
    'started as an executable, runs node with the V8 flags of its first line (the heap bounded for long reads)',
    { timeout: 30_000 },
    async () => {
      layout();
      writeFileSync(
        join(root, 'src', 'cli', 'main.ts'),
        'process.stdout.write(JSON.stringify([process.execArgv, process.env.MALLOC_MMAP_THRESHOLD_]));\n',
      );
      const { stdout } = await run(join(root, 'bin', 'erp-sync.js'), [], {
        env: { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}` },
      });
      expect(JSON.parse(stdout)).toEqual([BIN_NODE_FLAGS, '131072']);
      expect(BIN_NODE_FLAGS).toEqual([
        '--max-semi-space-size=16',
        '--heap-growing-percent=50',
        '--min-semi-space-size=4',
      ]);
      expect(BIN_NODE_ENV).toEqual({ MALLOC_MMAP_THRESHOLD_: '131072' });
      // Linux before 5.1 reads the first 127 characters of it and cuts the rest silently.
      const first = readFileSync(join(PROJECT_ROOT, 'bin', 'erp-sync.js'), 'utf8').split('\n', 1)[0]!;
      expect(first.length).toBeLessThanOrEqual(127);
    },
  );

  it(
    'runs the sources in a checkout, dist/ in an installed copy (no src/, or no tsx)',
    { timeout: 30_000 },
    async () => {
      layout();
      // A checkout: the sources, also when dist/ was just built (an edit after it must count).
      expect(await ran()).toBe('src');
      // A host install from a checkout after `npm prune --omit=dev`: tsx is gone, dist/ runs.
      rmSync(join(root, 'node_modules'));
      mkdirSync(join(root, 'node_modules'));
      expect(await ran()).toBe('dist');
      // The image or an npm-installed package: no src/.
      layout();
      rmSync(join(root, 'src'), { recursive: true });
      expect(await ran()).toBe('dist');
    },
  );

  it('refuses a Node.js older than package.json engines, with exit 78 and both versions', async () => {
    layout('>=999.0.0');
    const failed = await run(process.execPath, [join(root, 'bin', 'erp-sync.js')]).then(
      () => undefined,
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
    expect(failed?.code).toBe(78);
    expect(failed?.stdout).toBe('');
    expect(failed?.stderr).toBe(
      `erp-sync needs Node.js >=999.0.0; this is ${process.version} (see README, Quick start)\n`,
    );
  });
});
