import { spawn } from 'node:child_process';
import type { Socket } from 'node:net';
import { fileURLToPath } from 'node:url';

/** What the janitor is told to clean up, one JSON line each on its stdin. */
export type JanitorItem = { dir: string } | { redis: { port: number; pid: number } };

/**
 * Cleans up after the demo even when it is killed with SIGKILL (no exit handler runs then): a
 * small detached child that holds the read end of a pipe from the demo. When the demo ends, however
 * it ends, the kernel closes the pipe and the child stops the private redis-server (only once
 * it has proved it is that one: the Redis on the registered port says it has the registered pid)
 * and removes the temporary folders. After a clean stop it finds nothing left to do.
 */
export interface DemoJanitor {
  /** Removes this folder once the demo is gone. */
  watchDir(dir: string): void;
  /** Stops this private redis-server once the demo is gone. */
  watchRedis(redis: { port: number; pid: number }): void;
}

const NO_JANITOR: DemoJanitor = { watchDir: () => undefined, watchRedis: () => undefined };

/** Starts the janitor; a demo without one (it could not be started) still runs and cleans up on a normal stop. */
export function startDemoJanitor(): DemoJanitor {
  // From the sources (tsx), the child needs tsx too; the compiled CLI runs the compiled file.
  const fromSources = import.meta.url.endsWith('.ts');
  const main = fileURLToPath(new URL(`./demoJanitorMain.${fromSources ? 'ts' : 'js'}`, import.meta.url));
  let child;
  try {
    child = spawn(
      process.execPath,
      fromSources ? ['--import', import.meta.resolve('tsx'), main] : [main],
      // Its own process group: a Ctrl-C, or a kill of the demo's group, leaves it to do its job.
      { stdio: ['pipe', 'ignore', 'ignore'], detached: true },
    );
  } catch {
    return NO_JANITOR;
  }
  child.on('error', () => undefined);
  child.stdin.on('error', () => undefined);
  // Neither the child nor the pipe keeps the demo alive.
  child.unref();
  (child.stdin as unknown as Socket).unref();
  const tell = (item: JanitorItem): void => {
    if (child.stdin.writable) child.stdin.write(`${JSON.stringify(item)}\n`);
  };
  return { watchDir: (dir) => tell({ dir }), watchRedis: (redis) => tell({ redis }) };
}
