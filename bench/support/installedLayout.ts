import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * bin/, dist/ (built from `sources` as its `npm run build` does: dev/buildDist.ts, or tsc before it), package.json and node_modules (this checkout's), with no
 * src/ beside them: erp-sync as the Docker image and an npm install run it. Returns its bin/erp-sync.js.
 */
export function installedLayout(sources: string, target: string): string {
  const root = resolve('.');
  process.stderr.write(`compiling dist/ of ${sources} ...\n`);
  if (existsSync(join(sources, 'dev', 'buildDist.ts'))) {
    execFileSync(
      process.execPath,
      ['--import', 'tsx', join(sources, 'dev', 'buildDist.ts'), '--outdir', join(target, 'dist')],
      { cwd: root, stdio: 'ignore' },
    );
  } else {
    compileWithTsc(sources, target);
  }
  cpSync(join(sources, 'bin'), join(target, 'bin'), { recursive: true });
  cpSync(join(sources, 'package.json'), join(target, 'package.json'));
  symlinkSync(join(root, 'node_modules'), join(target, 'node_modules'));
  return join(target, 'bin', 'erp-sync.js');
}

/** dist/ as commits before the bundle built it: tsc, one file per source file. */
function compileWithTsc(sources: string, target: string): void {
  const root = resolve('.');
  try {
    execFileSync(
      process.execPath,
      [
        join(root, 'node_modules/typescript/bin/tsc'),
        '-p',
        'tsconfig.build.json',
        '--outDir',
        join(target, 'dist'),
      ],
      { cwd: sources, stdio: 'ignore' },
    );
  } catch (error) {
    // An older commit against today's dependencies may have type errors; tsc emits all the same.
    if (!existsSync(join(target, 'dist', 'cli', 'main.js'))) throw error;
  }
}
