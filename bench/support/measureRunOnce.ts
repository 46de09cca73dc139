import type { RunSummary } from '../../src/sync/frame/types.js';
import { measureCli } from './measureCli.js';

export interface MeasuredRun {
  summary: RunSummary;
  wallSeconds: number;
  peakRssMb: number;
  cpuSeconds: number;
}

/**
 * Runs `erp-sync run-once --json ARGS` as a child process (measureCli: wall time and peak RSS are
 * the run's alone; `bin`: an installed erp-sync) and returns the first pipeline's summary.
 */
export async function measureRunOnce(
  args: string[],
  okExitCodes: number[] = [0],
  nodeArgs: string[] = [],
  bin?: string,
): Promise<MeasuredRun> {
  const run = await measureCli<{ summaries: RunSummary[] }>(
    ['run-once', '--json', ...args],
    okExitCodes,
    nodeArgs,
    bin,
  );
  return {
    summary: run.output.summaries[0]!,
    wallSeconds: run.wallSeconds,
    peakRssMb: run.peakRssMb,
    cpuSeconds: run.cpuSeconds,
  };
}
