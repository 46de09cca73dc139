import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/logger.js';
import { startSandbox, type Sandbox } from '../../../src/sandbox/index.js';
import { createMetrics, startOpsServer } from '../../../src/server/index.js';
import { openStore } from '../../../src/store/index.js';
import { freePort } from '../../../dev/redisServer.js';
import {
  HEALTHCHECK,
  createWorkspace,
  processesMentioning,
  startEntrypoint,
  type Workspace,
} from '../../support/entrypointProcess.js';

// deploy/docker-entrypoint.sh driving the real CLI (TypeScript source) against the real sandbox.

let sandbox: Sandbox;
const workspaces: Workspace[] = [];

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: 'demo', logLevel: 'silent' });
});

afterAll(async () => {
  await sandbox.close();
  for (const ws of workspaces) rmSync(ws.dir, { recursive: true, force: true });
});

function workspace(prefix: string): Workspace {
  const ws = createWorkspace(prefix);
  workspaces.push(ws);
  return ws;
}

function loopEnv(ws: Workspace, env: Record<string, string> = {}): Record<string, string> {
  return {
    ERP_SYNC_BIN: ws.bin,
    ERP_SYNC_CONFIG: ws.configFile,
    ERP_SYNC_HEARTBEAT: ws.heartbeat,
    CMS_BASE_URL: sandbox.url,
    CMS_API_KEY: sandbox.keys.primary,
    ...env,
  };
}

function healthcheck(ws: Workspace, env: Record<string, string> = {}): { code: number | null; out: string } {
  const result = spawnSync(HEALTHCHECK, [], {
    env: { PATH: process.env.PATH, ERP_SYNC_HEARTBEAT: ws.heartbeat, ...env },
    encoding: 'utf8',
  });
  return { code: result.status, out: result.stdout + result.stderr };
}

// Real processes on a shared machine: generous per-test limits; the timing assertions are separate.
describe('docker-entrypoint.sh loop', { timeout: 60_000 }, () => {
  it('runs run-once ERP_SYNC_MAX_RUNS times, logs each exit code, and refreshes the heartbeat', async () => {
    const ws = workspace('runs');
    const startedAt = Math.floor(Date.now() / 1000);
    const loop = startEntrypoint([], loopEnv(ws, { ERP_SYNC_INTERVAL: '0', ERP_SYNC_MAX_RUNS: '2' }));
    const { code } = await loop.exited;
    expect(loop.stderr()).not.toMatch(/Error:|at .*\.ts:\d+/);
    expect(code).toBe(0);

    const lines = loop.loopLines();
    expect(lines.filter((l) => l.msg === 'run started').map((l) => l.run)).toEqual([1, 2]);
    expect(lines.filter((l) => l.msg === 'run finished').map((l) => [l.run, l.exitCode])).toEqual([
      [1, 0],
      [2, 0],
    ]);
    expect(lines.at(-1)?.msg).toBe('ERP_SYNC_MAX_RUNS reached');
    // run-once's own summary table, once per run, on stdout
    expect(loop.stdout().match(/^stock\s+\d+/gm)).toHaveLength(2);

    const [epoch, run] = readFileSync(ws.heartbeat, 'utf8').trim().split(' ').map(Number);
    expect(run).toBe(2);
    expect(epoch).toBeGreaterThanOrEqual(startedAt);
    expect(epoch).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000));

    // the loop marks itself, so that the HEALTHCHECK script checks the heartbeat, not /healthz
    expect(readFileSync(`${ws.heartbeat}.mode`, 'utf8')).toBe('loop\n');
    // the HEALTHCHECK script: healthy now, unhealthy when the heartbeat is stale or missing
    const healthy = healthcheck(ws);
    expect(healthy.out).toMatch(/^healthy: the last successful run finished \d+s ago \(limit 600s\)/);
    expect(healthy.code).toBe(0);
    writeFileSync(ws.heartbeat, `${Math.floor(Date.now() / 1000) - 400} 2\n`);
    expect(healthcheck(ws).code).toBe(0); // within the default limit (5 x 60 + 300 s)
    const stale = healthcheck(ws, { ERP_SYNC_INTERVAL: '10' }); // limit 5 x 10 + 300 = 350 s
    expect(stale.out).toMatch(/^unhealthy: the last successful run finished 40\ds ago \(limit 350s\)/);
    expect(stale.code).toBe(1);
    rmSync(ws.heartbeat);
    const missing = healthcheck(ws);
    expect(missing.out).toMatch(/^unhealthy: no successful run yet/);
    expect(missing.code).toBe(1);
  });

  it('passes run-once flags given after `loop`', async () => {
    const ws = workspace('flags');
    const loop = startEntrypoint(
      ['loop', '--only', 'stock,prices', '--json'],
      loopEnv(ws, { ERP_SYNC_MAX_RUNS: '1' }),
    );
    const { code } = await loop.exited;
    expect(code).toBe(0);
    const { summaries } = JSON.parse(loop.stdout()) as { summaries: { pipeline: string }[] };
    expect(summaries.map((s) => s.pipeline)).toEqual(['stock', 'prices']);
  });

  it('stops at once on SIGTERM while waiting for the next run, exit code 0', async () => {
    const ws = workspace('term-idle');
    const loop = startEntrypoint([], loopEnv(ws, { ERP_SYNC_INTERVAL: '60' }));
    await loop.waitForLine((l) => l.msg === 'run finished', 25_000);
    const sentAt = Date.now();
    loop.child.kill('SIGTERM');
    const { code, at } = await loop.exited;
    expect(at - sentAt).toBeLessThan(5_000);
    expect(code).toBe(0);
    expect(loop.loopLines().at(-1)).toMatchObject({ msg: 'stopped by signal' });
    expect(loop.loopLines().filter((l) => l.msg === 'run started')).toHaveLength(1);
  });

  it('forwards SIGTERM to a running run-once, waits for it, and leaves no process behind', async () => {
    // A slow platform keeps the run busy for about 10 s: without forwarding, the loop would wait it out.
    const slow = await startSandbox({ port: 0, seed: 'demo', logLevel: 'silent', faults: 'latency=400-400' });
    try {
      const ws = workspace('term-busy');
      const loop = startEntrypoint(
        ['loop', '--config', ws.configFile],
        loopEnv(ws, { CMS_BASE_URL: slow.url, CMS_API_KEY: slow.keys.primary, ERP_SYNC_INTERVAL: '60' }),
      );
      await loop.waitForLine((l) => l.msg === 'run started', 10_000);
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      expect(processesMentioning(ws.configFile).length).toBeGreaterThanOrEqual(2); // loop + run-once
      const sentAt = Date.now();
      loop.child.kill('SIGTERM');
      const { code, at } = await loop.exited;
      expect(at - sentAt).toBeLessThan(5_000);
      expect(code).toBe(0);
      const lines = loop.loopLines();
      expect(lines.filter((l) => l.msg === 'run started')).toHaveLength(1);
      expect(lines.find((l) => l.run === 1 && l.exitCode !== undefined)).toMatchObject({
        stopRequested: true,
      });
      expect(lines.at(-1)).toMatchObject({ msg: 'stopped by signal' });
      expect(processesMentioning(ws.configFile)).toEqual([]);
    } finally {
      await slow.close();
    }
  });

  it('on an invalid configuration (78) does not retry: stays up, unhealthy with the reason, until SIGTERM', async () => {
    const ws = workspace('badconfig');
    writeFileSync(ws.configFile, 'erp:\n  type: ftp\n');
    const loop = startEntrypoint([], loopEnv(ws, { ERP_SYNC_INTERVAL: '0' }));
    await loop.waitForLine((l) => l.level === 60, 30_000);
    // Still up a while later, and no second run: `restart: unless-stopped` has nothing to restart.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(loop.child.exitCode).toBeNull();
    expect(loop.stderr()).toContain('erp');
    const lines = loop.loopLines();
    expect(lines.filter((l) => l.msg === 'run started')).toHaveLength(1);
    expect(lines.at(-1)).toMatchObject({ level: 60, exitCode: 78 });
    expect(lines.at(-1)?.msg).toMatch(/^invalid configuration: .*the container stays up, unhealthy/);
    expect(existsSync(ws.heartbeat)).toBe(false);
    const health = healthcheck(ws);
    expect(health.out).toMatch(/^unhealthy: erp-sync run-once exited 78: invalid configuration; fix it/);
    expect(health.code).toBe(1);

    loop.child.kill('SIGTERM');
    expect((await loop.exited).code).toBe(78);
  });

  it('on an invalid loop setting stays up unhealthy without running anything; ERP_SYNC_ON_HALT=exit exits 78', async () => {
    const ws = workspace('badinterval');
    const loop = startEntrypoint([], loopEnv(ws, { ERP_SYNC_INTERVAL: '1m' }));
    await loop.waitForLine((l) => l.exitCode === 78 && /stays up/.test(l.msg), 10_000);
    expect(loop.loopLines()).toEqual([
      expect.objectContaining({ msg: "ERP_SYNC_INTERVAL must be a whole number of seconds, got '1m'" }),
      expect.objectContaining({ level: 60, exitCode: 78 }),
    ]);
    expect(healthcheck(ws).out).toMatch(/^unhealthy: the loop exited 78: invalid loop setting/);
    loop.child.kill('SIGINT');
    expect((await loop.exited).code).toBe(78);

    const exits = startEntrypoint([], loopEnv(ws, { ERP_SYNC_INTERVAL: '1m', ERP_SYNC_ON_HALT: 'exit' }));
    expect((await exits.exited).code).toBe(78);
  });

  it('`start` on a store of another company (65) stays up, unhealthy with the reason, and forwards no restart', async () => {
    const ws = workspace('other-company');
    const bound = startEntrypoint([], loopEnv(ws, { ERP_SYNC_INTERVAL: '0', ERP_SYNC_MAX_RUNS: '1' }));
    expect((await bound.exited).code).toBe(0);
    // the daemon refuses before it needs Redis: none listens here
    const env = loopEnv(ws, {
      CMS_API_KEY: sandbox.keys.secondary,
      REDIS_URL: `redis://127.0.0.1:${await freePort()}`,
    });
    const daemon = startEntrypoint(['start', '--config', ws.configFile], env);
    await daemon.waitForLine((l) => l.exitCode === 65, 60_000);
    expect(daemon.stderr()).toContain('not to the account "Second Shop SRL" (company 2)');
    expect(daemon.child.exitCode).toBeNull();
    const health = healthcheck(ws);
    expect(health.out).toMatch(
      /^unhealthy: erp-sync start exited 65: the store belongs to another company's account; fix it/,
    );
    expect(health.code).toBe(1);
    daemon.child.kill('SIGTERM');
    expect((await daemon.exited).code).toBe(65);
    expect(processesMentioning(ws.configFile)).toEqual([]);
  });

  it('waits ERP_SYNC_FATAL_BACKOFF after a refused API key (exit 2) instead of spinning', async () => {
    const ws = workspace('revoked');
    const loop = startEntrypoint(
      [],
      loopEnv(ws, {
        CMS_API_KEY: sandbox.keys.revoked,
        ERP_SYNC_INTERVAL: '0',
        ERP_SYNC_FATAL_BACKOFF: '30',
        ERP_SYNC_MAX_RUNS: '5',
      }),
    );
    const backoff = await loop.waitForLine((l) => l.msg.startsWith('fatal error'), 25_000);
    expect(backoff).toMatchObject({ exitCode: 2, run: 1, msg: expect.stringContaining('next run in 30s') });
    // with interval 0, a loop that did not back off would have started run 2 by now
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(loop.loopLines().filter((l) => l.msg === 'run started')).toHaveLength(1);
    expect(loop.stderr()).toContain('the platform refused the API key');
    expect(loop.stderr()).not.toContain(sandbox.keys.revoked);
    const sentAt = Date.now();
    loop.child.kill('SIGTERM');
    const { code, at } = await loop.exited;
    expect(at - sentAt).toBeLessThan(5_000);
    expect(code).toBe(0);
    expect(existsSync(ws.heartbeat)).toBe(false);
  });
});

/** Like healthcheck(), without blocking this process's event loop (the ops server under test runs in it). */
function healthcheckAsync(
  ws: Workspace,
  env: Record<string, string>,
): Promise<{ code: number | null; out: string }> {
  return new Promise((done, fail) => {
    const child = spawn(HEALTHCHECK, [], {
      env: { PATH: process.env.PATH, ERP_SYNC_HEARTBEAT: ws.heartbeat, ...env },
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.once('error', fail);
    child.once('close', (code) => done({ code, out }));
  });
}

describe('HEALTHCHECK of the daemon (no loop mark)', { timeout: 60_000 }, () => {
  it("is healthy while the ops server's /healthz answers 200, unhealthy when nothing listens", async () => {
    const ws = workspace('daemon-health');
    const server = await startOpsServer({
      host: '127.0.0.1',
      port: 0,
      metrics: createMetrics(),
      readiness: async () => ({ ready: false, reasons: ['Redis is unreachable'] }),
      queues: [],
      logger: silentLogger(),
    });
    const url = `${server.url}/healthz`;
    try {
      // not ready (Redis away) is still healthy: restarting would not bring Redis back
      const healthy = await healthcheckAsync(ws, { ERP_SYNC_HEALTH_URL: url });
      expect(healthy.out).toMatch(new RegExp(`^healthy: ${url} answered 200 \\{"status":"ok"`));
      expect(healthy.code).toBe(0);
    } finally {
      await server.close();
    }
    const down = await healthcheckAsync(ws, { ERP_SYNC_HEALTH_URL: url });
    expect(down.out).toMatch(new RegExp(`^unhealthy: ${url}: ECONNREFUSED`));
    expect(down.code).toBe(1);
  });
});

describe('docker-entrypoint.sh ARGS', { timeout: 60_000 }, () => {
  it('runs any other sub-command as `erp-sync ARGS` and returns its exit code', async () => {
    const ws = workspace('passthrough');
    openStore(ws.storePath).close(); // status shows a store; it never creates one
    const status = startEntrypoint(['status', '--json'], loopEnv(ws));
    const result = await status.exited;
    expect(status.stderr()).toBe('');
    expect(result.code).toBe(0);
    const report = JSON.parse(status.stdout()) as { store: string; pipelines: { status: string | null }[] };
    expect(report.store).toBe(ws.storePath);
    expect(report.pipelines.length).toBeGreaterThan(0);
    expect(status.loopLines()).toEqual([]);

    const unknown = startEntrypoint(['no-such-command'], loopEnv(ws));
    const failed = await unknown.exited;
    expect(failed.code).not.toBe(0);
    expect(unknown.stderr()).toContain("unknown command 'no-such-command'");
    expect(unknown.loopLines()).toEqual([]);
  });
});

describe('HEALTHCHECK of the other commands (the entrypoint marks what runs)', { timeout: 60_000 }, () => {
  it('a sandbox is healthy while it answers HTTP on its --port, unhealthy once it is gone', async () => {
    const ws = workspace('sandbox-health');
    const port = await freePort();
    const running = startEntrypoint(['sandbox', '--host', '0.0.0.0', '--port', String(port)], loopEnv(ws));
    try {
      for (let waited = 0; !running.stdout().includes('"event":"ready"'); waited += 50) {
        if (waited > 30_000) throw new Error(`sandbox not ready: ${running.stderr()}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const url = `http://127.0.0.1:${port}/api/v2/account`;
      expect(readFileSync(`${ws.heartbeat}.mode`, 'utf8')).toBe(`sandbox ${url}\n`);
      // the probe has no key: the sandbox's 401 is an answer, so healthy
      const healthy = await healthcheckAsync(ws, {});
      expect(healthy.out).toMatch(new RegExp(`^healthy: ${url} answered 401 `));
      expect(healthy.code).toBe(0);
    } finally {
      running.child.kill('SIGTERM');
    }
    expect((await running.exited).code).toBe(0);
    const gone = await healthcheckAsync(ws, {});
    expect(gone.out).toMatch(/^unhealthy: .*ECONNREFUSED/);
    expect(gone.code).toBe(1);
  });

  it('`start` is the daemon (its /healthz), any other command is healthy while it runs', async () => {
    const ws = workspace('command-health');
    const daemonHelp = startEntrypoint(['start', '--help'], loopEnv(ws));
    expect((await daemonHelp.exited).code).toBe(0);
    expect(readFileSync(`${ws.heartbeat}.mode`, 'utf8')).toBe('daemon\n');
    const down = healthcheck(ws, { ERP_SYNC_HEALTH_URL: `http://127.0.0.1:${await freePort()}/healthz` });
    expect(down.out).toMatch(/^unhealthy: .*ECONNREFUSED/);

    // the sub-command after the global options (-c FILE)
    openStore(ws.storePath).close(); // status shows a store; it never creates one
    const status = startEntrypoint(['-c', ws.configFile, 'status', '--json'], loopEnv(ws));
    expect((await status.exited).code).toBe(0);
    expect(readFileSync(`${ws.heartbeat}.mode`, 'utf8')).toBe('command status\n');
    const healthy = healthcheck(ws);
    expect(healthy.out).toMatch(/^healthy: erp-sync status runs/);
    expect(healthy.code).toBe(0);

    // a sandbox on --port 0 tells its port only in its own log: nothing to probe
    const anyPort = startEntrypoint(['sandbox', '--port', '0', '--help'], loopEnv(ws));
    expect((await anyPort.exited).code).toBe(0);
    expect(readFileSync(`${ws.heartbeat}.mode`, 'utf8')).toBe('command sandbox\n');
  });
});
