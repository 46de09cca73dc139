import { execFile } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN_LINE_FLAGS, BIN_LONG_RUN_FLAGS, BIN_NODE_ENV, BIN_NODE_FLAGS } from '../../../dev/nodeFlags.js';
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
  writeFileSync(
    join(root, 'dist', 'cli.cjs'),
    "exports.runCli = async (argv) => { process.stdout.write('dist\\n'); process.exitCode = argv.includes('fail') ? 1 : 0; };\n",
  );
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
      expect(JSON.parse(stdout)).toEqual([BIN_LINE_FLAGS, '131072']);
      expect(BIN_LINE_FLAGS).toEqual(['--max-semi-space-size=16', '--min-semi-space-size=4']);
      // Set by the bin at run time, not on the first line (it would make Node compile its own
      // modules from their source): dev/nodeFlags.ts gives both to the sources started directly.
      expect(BIN_LONG_RUN_FLAGS).toEqual(['--heap-growing-percent=50']);
      expect(BIN_NODE_FLAGS).toEqual([...BIN_LINE_FLAGS, ...BIN_LONG_RUN_FLAGS]);
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

  it(
    'an installed copy keeps a V8 code cache per command beside the compile cache, made after a command that succeeded',
    { timeout: 30_000 },
    async () => {
      layout();
      rmSync(join(root, 'src'), { recursive: true });
      const cacheDir = join(root, 'compile-cache');
      const env: NodeJS.ProcessEnv = { ...process.env, NODE_COMPILE_CACHE: cacheDir };
      delete env.NODE_DISABLE_COMPILE_CACHE;
      const start = async (args: string[]): Promise<string> =>
        (await run(process.execPath, [join(root, 'bin', 'erp-sync.js'), ...args], { env })).stdout.trim();
      const caches = (): Map<string, string> => {
        const found = new Map<string, string>();
        for (const entry of readdirSync(cacheDir, { recursive: true, encoding: 'utf8' }))
          if (/erp-sync-[^/]*\.cache$/.test(entry))
            found.set(entry.replace(/.*\//, ''), readFileSync(join(cacheDir, entry), 'latin1'));
        return found;
      };

      // a command's help first: cached apart, so that it does not stand for the command's own run
      expect(await start(['status', '--help'])).toBe('dist');
      expect(await start(['-c', 'some.yaml', 'status', '--json'])).toBe('dist');
      expect(await start(['--version'])).toBe('dist');
      await expect(start(['status', 'fail'])).rejects.toMatchObject({ code: 1 });
      // status, named past the option's value, its help, and no command at all; the failed run changed none
      const first = caches();
      expect([...first.keys()].map((name) => name.replace(/-\d+-\d+\.cache$/, '')).sort()).toEqual([
        'erp-sync-none',
        'erp-sync-status',
        'erp-sync-status-help',
      ]);
      // V8 takes the cache, the command runs as before and the file stays as it was
      expect(await start(['status'])).toBe('dist');
      expect(caches()).toEqual(first);
      // a cache V8 refuses (another Node, damaged) is made again
      const status = [...first.keys()].find((name) => name.startsWith('erp-sync-status'))!;
      const path = readdirSync(cacheDir, { recursive: true, encoding: 'utf8' }).find((entry) =>
        entry.endsWith(status),
      )!;
      writeFileSync(join(cacheDir, path), 'not a code cache');
      expect(await start(['status'])).toBe('dist');
      const remade = caches().get(status)!;
      expect(remade).not.toBe('not a code cache');
      expect(remade.length).toBeGreaterThan(100);
      expect(await start(['status'])).toBe('dist');
      expect(caches().get(status)).toBe(remade);
    },
  );

  it('an installed copy runs status, check, run-once and no command from their own files when dist/ has them, every other command from dist/cli.cjs', async () => {
    layout();
    rmSync(join(root, 'src'), { recursive: true });
    const start = async (args: string[]): Promise<string> =>
      (await run(process.execPath, [join(root, 'bin', 'erp-sync.js'), ...args])).stdout.trim();
    // an older dist/ without them: cli.cjs runs every command
    expect(await start(['check'])).toBe('dist');
    for (const command of ['status', 'check', 'run-once', 'none'])
      writeFileSync(
        join(root, 'dist', `cli-${command}.cjs`),
        `exports.runCli = async () => { process.stdout.write('${command} file\\n'); };\n`,
      );
    expect(await start(['-c', 'some.yaml', 'status', '--json'])).toBe('status file');
    expect(await start(['check'])).toBe('check file');
    expect(await start(['-c', 'some.yaml', 'run-once', '--only', 'stock', '--json'])).toBe('run-once file');
    expect(await start(['--account', 'check', 'sync'])).toBe('dist');
    expect(await start(['help', 'check'])).toBe('dist');
    // no command (--version, --help, nothing): the file without any command's code
    expect(await start(['--version'])).toBe('none file');
    expect(await start(['-c', 'some.yaml', '--help'])).toBe('none file');
    expect(await start([])).toBe('none file');
  });

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
