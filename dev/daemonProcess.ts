import { spawn, type ChildProcess } from 'node:child_process';
import { BIN_NODE_ENV, BIN_NODE_FLAGS } from './nodeFlags.js';
import { CLI_ENTRY, PROJECT_ROOT } from './projectPaths.js';

/** `erp-sync start` as a real child process (node itself, so signals reach the daemon). */
export interface DaemonProcess {
  child: ChildProcess;
  /** The ops server's URL from the ready line. */
  url: string;
  stderr(): string;
  stdout(): string;
  /** Resolves with the exit code and signal once the process ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill(signal?: NodeJS.Signals): void;
}

export async function startDaemonProcess(
  configFile: string,
  env: Record<string, string>,
  options: {
    readyTimeoutMs?: number;
    /** The working folder (default: the project's): a "host" of its own in a multi-host test. */
    cwd?: string;
  } = {},
): Promise<DaemonProcess> {
  // tsx by its resolved URL, so that a daemon started in another folder finds it too.
  const tsx = import.meta.resolve('tsx');
  const child = spawn(
    process.execPath,
    [...BIN_NODE_FLAGS, '--import', tsx, CLI_ENTRY, 'start', '--config', configFile],
    {
      cwd: options.cwd ?? PROJECT_ROOT,
      env: { PATH: process.env.PATH ?? '', ...BIN_NODE_ENV, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`daemon not ready in time; stderr:\n${stderr.slice(-4000)}`));
    }, options.readyTimeoutMs ?? 30_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const line = stdout.split('\n').find((l) => l.includes('"event":"ready"'));
      if (line) {
        clearTimeout(timer);
        resolve((JSON.parse(line) as { url: string }).url);
      }
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`daemon exited (${code ?? signal}) before ready; stderr:\n${stderr.slice(-4000)}`));
    });
  });
  return {
    child,
    url,
    stderr: () => stderr,
    stdout: () => stdout,
    exited,
    kill: (signal = 'SIGTERM') => void child.kill(signal),
  };
}

/** Polls `check` until it returns true or the time is up (then fails with `what`). */
export async function eventually(
  what: string,
  check: () => Promise<boolean> | boolean,
  timeoutMs = 40_000,
  everyMs = 250,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
