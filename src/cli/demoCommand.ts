import type { DemoOptions } from './demo/DemoOptions.js';
import { runDaemonDemo } from './demo/daemonDemo.js';
import { runInlineDemo } from './demo/inlineDemo.js';
import { obtainDemoRedis } from './demo/obtainDemoRedis.js';
import { say } from './demo/say.js';
import { startDemoJanitor } from './demo/startDemoJanitor.js';

/**
 * `erp-sync demo`: the whole product in one command, with nothing to configure. With Redis
 * (REDIS_URL, or a private redis-server from PATH) it runs the daemon until Ctrl-C; without,
 * it says how to get Redis and runs every pipeline inline. Ctrl-C stops it cleanly either way.
 */
export async function runDemo(options: DemoOptions): Promise<number> {
  const stop = new AbortController();
  const onSignal = (): void => stop.abort();
  // A closed stdout (`| head`) ends the demo as Ctrl-C does: everything is still stopped and removed.
  // Kept to the end of the process: the last writes fail after this function has returned.
  const onStdoutError = (error: NodeJS.ErrnoException): void => {
    if (error.code !== 'EPIPE') throw error;
    stop.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.stdout.on('error', onStdoutError);
  // Cleans up what the demo started and created even if it is killed with SIGKILL.
  const janitor = startDemoJanitor();
  try {
    const choice = await obtainDemoRedis(process.env, janitor);
    if ('hint' in choice) {
      process.stdout.write(`${choice.hint}\n`);
      return await runInlineDemo(options, stop.signal, janitor);
    }
    try {
      return await runDaemonDemo(options, choice.redis, stop.signal, janitor);
    } finally {
      await choice.redis.close();
      say(
        options.dir || options.keep
          ? 'Stopped. The work folder is kept.'
          : 'Stopped; the temporary folders are removed.',
      );
    }
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/** `erp-sync demo`. */
export async function demoCommand(flags: { keep: boolean; dir?: string; for?: number }): Promise<void> {
  process.exitCode = await runDemo({ keep: flags.keep, dir: flags.dir, forSeconds: flags.for });
}
