import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeConfigFile } from '../../src/config.js';
import { PROJECT_ROOT } from './cli.js';

export const ENTRYPOINT = join(PROJECT_ROOT, 'deploy/docker-entrypoint.sh');
export const HEALTHCHECK = join(PROJECT_ROOT, 'deploy/healthcheck.sh');

/** A temp work dir: the ERP drop folder (config/sample/*.csv), a config file, and an erp-sync wrapper. */
export interface Workspace {
  dir: string;
  erpDir: string;
  storePath: string;
  configFile: string;
  heartbeat: string;
  /** `erp-sync`: the real CLI from the TypeScript source (node --import tsx src/cli/main.ts). */
  bin: string;
}

export function createWorkspace(prefix: string): Workspace {
  const dir = mkdtempSync(join(tmpdir(), `erp-sync-deploy-${prefix}-`));
  const erpDir = join(dir, 'erp');
  mkdirSync(erpDir);
  const sample = join(PROJECT_ROOT, 'config/sample');
  for (const file of readdirSync(sample).filter((name) => name.endsWith('.csv'))) {
    cpSync(join(sample, file), join(erpDir, file));
  }
  const storePath = join(dir, 'erp-sync.db');
  const configFile = join(dir, 'config.yaml');
  writeConfigFile(configFile, {
    erp: { type: 'file', path: erpDir, stableMs: 0 },
    store: { path: storePath },
    log: { level: 'warn' },
  });
  const bin = join(dir, 'erp-sync');
  // `--import tsx` resolves from the working directory: the loop is started in PROJECT_ROOT.
  writeFileSync(
    bin,
    `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} --import tsx ${JSON.stringify(join(PROJECT_ROOT, 'src/cli/main.ts'))} "$@"\n`,
  );
  chmodSync(bin, 0o755);
  return { dir, erpDir, storePath, configFile, heartbeat: join(dir, 'heartbeat'), bin };
}

export interface LoopLine {
  level: number;
  msg: string;
  component?: string;
  run?: number;
  exitCode?: number;
  stopRequested?: boolean;
}

export interface Running {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** The entrypoint's own JSON log lines (component "loop"). */
  loopLines(): LoopLine[];
  waitForLine(predicate: (line: LoopLine) => boolean, timeoutMs: number): Promise<LoopLine>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
}

/** Starts deploy/docker-entrypoint.sh as a real process (it is executed, so its mode must be 755). */
export function startEntrypoint(args: string[], env: Record<string, string>): Running {
  const base: Record<string, string | undefined> = { ...process.env };
  for (const key of Object.keys(base)) {
    if (/^(ERP_SYNC_|CMS_|LOG_LEVEL$)/.test(key)) delete base[key];
  }
  const child = spawn(ENTRYPOINT, args, {
    cwd: PROJECT_ROOT,
    env: { ...base, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>(
    (resolve, reject) => {
      child.once('error', reject);
      child.once('close', (code, signal) => resolve({ code, signal, at: Date.now() }));
    },
  );
  const loopLines = (): LoopLine[] =>
    stderr
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as LoopLine)
      .filter((line) => line.component === 'loop');
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    loopLines,
    exited,
    async waitForLine(predicate, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      let done = false;
      void exited.then(() => (done = true));
      for (;;) {
        const found = loopLines().find(predicate);
        if (found) return found;
        if (done || Date.now() > deadline) {
          throw new Error(`expected log line not seen; stderr so far:\n${stderr}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
  };
}

/** Processes whose command line mentions `marker` (read from /proc: no ps needed). */
export function processesMentioning(marker: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(marker)) pids.push(Number(entry));
    } catch {
      // the process ended meanwhile
    }
  }
  return pids;
}
