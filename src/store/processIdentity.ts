import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';

/**
 * Who a process is, as "host:pid:start": the PID alone is not enough, PIDs are reused (they wrap
 * at 32768 on many Linux hosts), so a crashed holder's PID may belong to a new process. The start
 * time (clock ticks since boot, from /proc/PID/stat) tells them apart; where /proc is missing it
 * is "-" and the PID alone decides.
 */
let own: string | undefined;

export function processIdentity(pid: number = process.pid): string {
  if (pid === process.pid) return (own ??= `${hostname()}:${pid}:${processStartTime(pid) ?? '-'}`);
  return `${hostname()}:${pid}:${processStartTime(pid) ?? '-'}`;
}

/** The start time of a process in clock ticks since boot, or null where /proc cannot tell. */
export function processStartTime(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: count after its end.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const start = fields[19]; // field 22 of the whole line
    return start && /^\d+$/.test(start) ? start : null;
  } catch {
    return null;
  }
}

/**
 * True when the process an identity names (or a lease owner starting with one: "host:pid:start:…")
 * surely no longer runs: it was on this host and its PID is gone, or now belongs to a process
 * started at another time. Another host's process, or an identity we cannot read, counts as alive.
 */
export function processIsGone(identity: string): boolean {
  const [host, pidText, start] = identity.split(':');
  if (host !== hostname() || !pidText || !/^\d+$/.test(pidText)) return false;
  const pid = Number(pidText);
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
  if (!start || !/^\d+$/.test(start)) return false; // an older owner format, or no /proc
  const now = processStartTime(pid);
  return now !== null && now !== start;
}
