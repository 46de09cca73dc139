import { readFileSync } from 'node:fs';

/** A live process's peak resident set so far (VmHWM), in MB; throws when the process is gone. */
export function peakRssMb(pid: number | undefined): number {
  const hwm = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return hwm ? Number(hwm[1]) / 1024 : NaN;
}
