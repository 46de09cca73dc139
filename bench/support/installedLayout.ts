import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * bin/, dist/ (compiled from `sources`), package.json and node_modules (this checkout's), with no
 * src/ beside them: erp-sync as the Docker image and an npm install run it. Returns its bin/erp-sync.js.
 */
export function installedLayout(sources: string, target: string): string {
  const root = resolve('.');
  process.stderr.write(`compiling dist/ of ${sources} ...\n`);
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
  cpSync(join(sources, 'bin'), join(target, 'bin'), { recursive: true });
  cpSync(join(sources, 'package.json'), join(target, 'package.json'));
  symlinkSync(join(root, 'node_modules'), join(target, 'node_modules'));
  return join(target, 'bin', 'erp-sync.js');
}
