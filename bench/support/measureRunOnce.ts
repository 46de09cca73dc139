import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import type { RunSummary } from '../../src/sync/types.js';

export interface MeasuredRun {
  summary: RunSummary;
  wallSeconds: number;
  peakRssMb: number;
}

/**
 * Runs `erp-sync run-once --json ARGS` as a child process, so its wall time and peak RSS (VmHWM,
 * sampled every 25 ms) are the daemon's alone, and returns the first pipeline's summary.
 */
export async function measureRunOnce(args: string[], okExitCodes: number[] = [0]): Promise<MeasuredRun> {
  const started = performance.now();
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/cli/main.ts', 'run-once', '--json', ...args],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  let peakKb = 0;
  const sample = setInterval(() => {
    try {
      const hwm = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
      if (hwm) peakKb = Math.max(peakKb, Number(hwm[1]));
    } catch {
      // the child has exited
    }
  }, 25);
  const [code] = (await once(child, 'exit')) as [number];
  clearInterval(sample);
  const wallSeconds = (performance.now() - started) / 1000;
  if (!okExitCodes.includes(code)) throw new Error(`run-once exited ${code}: ${stdout}`);
  const summary = (JSON.parse(stdout) as { summaries: RunSummary[] }).summaries[0]!;
  return { summary, wallSeconds, peakRssMb: peakKb / 1024 };
}
