import { spawn } from 'node:child_process';
import { CLI_ENTRY, PROJECT_ROOT } from '../../dev/projectPaths.js';

export { CLI_ENTRY, PROJECT_ROOT };
/** tsx by its resolved URL, so that a child started in another folder (options.cwd) finds it too. */
const TSX = import.meta.resolve('tsx');

/** Node prints a stack trace as lines starting with "    at ". */
export const STACK_TRACE = /^\s+at /m;

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `erp-sync ARGS` from the TypeScript sources as a real child process. The environment is
 * exactly `env` (plus PATH), so a CMS_API_KEY of the test runner never leaks into the child.
 */
export function runCli(
  args: string[],
  env: Record<string, string> = {},
  options: {
    timeoutMs?: number;
    cwd?: string;
    /** Called with the whole stdout so far at each chunk, while the command runs; `signal` reaches it. */
    onStdout?: (stdout: string, signal: (name: NodeJS.Signals) => void) => void;
  } = {},
): Promise<CliResult> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['--import', TSX, CLI_ENTRY, ...args], {
      cwd: options.cwd ?? PROJECT_ROOT,
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      options.onStdout?.(stdout, (name) => child.kill(name));
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.once('error', fail);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      done({ code, signal, stdout, stderr });
    });
  });
}
