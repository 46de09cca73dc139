import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { BIN_NODE_ENV, BIN_NODE_FLAGS } from '../../dev/nodeFlags.js';
import { peakRssMb } from './peakRssMb.js';

export interface MeasuredCli<T> {
  output: T;
  code: number;
  wallSeconds: number;
  peakRssMb: number;
  /** User + system CPU seconds of the child, as last sampled before it exited (every 25 ms). */
  cpuSeconds: number;
}

/**
 * Runs `erp-sync ARGS` (ARGS ending in a --json flag) as a child process, so its wall time and
 * peak RSS (VmHWM, sampled every 25 ms) are the command's alone, and returns its parsed output.
 * `bin`: an installed erp-sync (installedLayout) instead of this checkout's sources through tsx.
 * Either runs with bin/erp-sync.js's V8 flags and environment, as a deployment does.
 */
export async function measureCli<T>(
  args: string[],
  okExitCodes: number[] = [0],
  nodeArgs: string[] = [],
  bin?: string,
): Promise<MeasuredCli<T>> {
  const started = performance.now();
  const entry = bin ? [bin] : ['--import', 'tsx', 'src/cli/main.ts'];
  const child = spawn(process.execPath, [...BIN_NODE_FLAGS, ...nodeArgs, ...entry, ...args], {
    env: { ...process.env, ...BIN_NODE_ENV },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  let peakMb = 0;
  let cpuSeconds = 0;
  const sample = setInterval(() => {
    try {
      peakMb = Math.max(peakMb, peakRssMb(child.pid) || 0);
      const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      cpuSeconds = (Number(fields[11]) + Number(fields[12])) / 100;
    } catch {
      // the child has exited
    }
  }, 25);
  const [code] = (await once(child, 'exit')) as [number];
  clearInterval(sample);
  const wallSeconds = (performance.now() - started) / 1000;
  if (!okExitCodes.includes(code)) throw new Error(`erp-sync ${args[0]} exited ${code}: ${stdout}`);
  return { output: JSON.parse(stdout) as T, code, wallSeconds, peakRssMb: peakMb, cpuSeconds };
}
