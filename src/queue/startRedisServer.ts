import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { RedisServerStartError } from './RedisServerStartError.js';

/** A `redis-server` child process on loopback, without persistence (the demo's and the tests' private Redis). */
export interface RedisServerProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  readonly port: number;
  readonly url: string;
  /** As the server announced it ("7.0.15"), or "?" */
  readonly version: string;
  /** SIGKILL (nothing to save) and resolves once the process is gone. */
  stop(): Promise<void>;
}

export interface RedisServerOptions {
  port: number;
  /** Its working folder (`--dir`): nothing is written there without persistence, but Redis insists on one. */
  dir: string;
  /** In its own process group, so a Ctrl-C on the terminal reaches only the parent, which stops it in order. */
  detached?: boolean;
  readyTimeoutMs?: number;
  /** `--requirepass`: clients must send it (tests that check a password never reaches a log line). */
  password?: string;
}

/** A port free on 127.0.0.1 right now (another process may still take it before it is used). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Starts `redis-server` from PATH and resolves once it accepts connections. */
export async function startRedisServer(options: RedisServerOptions): Promise<RedisServerProcess> {
  const args = ['--port', String(options.port), '--bind', '127.0.0.1', '--dir', options.dir];
  args.push('--save', '', '--appendonly', 'no', '--maxmemory-policy', 'noeviction');
  if (options.password) args.push('--requirepass', options.password);
  const child = spawn('redis-server', args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.detached ?? false,
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let output = '';
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new RedisServerStartError(`not ready within the time: ${output.slice(-500)}`, false)),
        options.readyTimeoutMs ?? 10_000,
      );
      const onData = (chunk: Buffer): void => {
        output += chunk.toString();
        if (/Ready to accept connections/.test(output)) {
          clearTimeout(timer);
          child.stdout?.off('data', onData);
          resolve();
        }
      };
      child.stdout?.on('data', onData);
      child.once('error', (error: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        const notFound = error.code === 'ENOENT';
        reject(new RedisServerStartError(notFound ? 'not found on PATH' : error.message, notFound));
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new RedisServerStartError(`it exited with ${code}: ${output.slice(-500)}`, false));
      });
    });
  } catch (error) {
    if (child.exitCode === null && child.pid !== undefined) {
      child.kill('SIGKILL');
      await exited;
    }
    throw error;
  }
  child.stdout?.resume();
  child.stderr?.resume();
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGKILL');
    await exited;
  };
  return {
    child,
    pid: child.pid!,
    port: options.port,
    url: `redis://${options.password ? `:${encodeURIComponent(options.password)}@` : ''}127.0.0.1:${options.port}`,
    version: /Redis version=(\d+\.\d+\.\d+)/.exec(output)?.[1] ?? '?',
    stop,
  };
}
