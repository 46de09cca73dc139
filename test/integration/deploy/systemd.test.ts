import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { parseConfig } from '../../../src/config.js';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../support/cli.js';

// `systemd-analyze verify` of the unmodified unit files, inside a temporary root (--root) that
// holds the units, the system's own units (sysinit.target, timers.target, ...) and a stand-in
// executable at the ExecStart path, so that verify checks everything it would on a real host.

const UNITS = ['erp-sync.service', 'erp-sync-once.service', 'erp-sync-once.timer'];
const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

function makeRoot(options: { withExecutable: boolean }): string {
  const root = mkdtempSync(join(tmpdir(), 'erp-sync-systemd-'));
  roots.push(root);
  mkdirSync(join(root, 'etc/systemd/system'), { recursive: true });
  for (const unit of UNITS)
    cpSync(join(PROJECT_ROOT, 'deploy', unit), join(root, 'etc/systemd/system', unit));
  mkdirSync(join(root, 'usr/lib/systemd'), { recursive: true });
  cpSync('/usr/lib/systemd/system', join(root, 'usr/lib/systemd/system'), { recursive: true });
  if (options.withExecutable) {
    mkdirSync(join(root, 'usr/local/bin'), { recursive: true });
    writeFileSync(join(root, 'usr/local/bin/erp-sync'), '#!/bin/sh\nexit 0\n');
    chmodSync(join(root, 'usr/local/bin/erp-sync'), 0o755);
    // ExecReload's kill(1), which every host has
    mkdirSync(join(root, 'bin'), { recursive: true });
    cpSync('/bin/kill', join(root, 'bin/kill'));
  }
  return root;
}

function verify(root: string): { code: number | null; output: string } {
  const result = spawnSync('systemd-analyze', ['verify', `--root=${root}`, ...UNITS], { encoding: 'utf8' });
  if (result.error) throw result.error;
  return { code: result.status, output: `${result.stdout}${result.stderr}`.trim() };
}

const unit = (name: string): string => readFileSync(join(PROJECT_ROOT, 'deploy', name), 'utf8');

describe('systemd units', () => {
  it('pass systemd-analyze verify with no warning at all', () => {
    const result = verify(makeRoot({ withExecutable: true }));
    expect(result.output).toBe('');
    expect(result.code).toBe(0);
  });

  it('verify really checks them: it fails when /usr/local/bin/erp-sync is missing', () => {
    const result = verify(makeRoot({ withExecutable: false }));
    expect(result.output).toContain('Command /usr/local/bin/erp-sync is not executable');
    expect(result.code).not.toBe(0);
  });

  /** The hardening both services share (an identical block in each), and the store/ERP paths it allows. */
  function expectHardened(service: string): void {
    expect(service).toMatch(/^EnvironmentFile=\/etc\/erp-sync\/env$/m);
    expect(service).toMatch(/^User=erp-sync$/m);
    for (const setting of [
      'NoNewPrivileges=yes',
      'ProtectSystem=strict',
      'PrivateTmp=yes',
      'ProtectHome=yes',
      'CapabilityBoundingSet=',
      'SystemCallFilter=@system-service',
      'RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX',
    ]) {
      expect(service).toMatch(new RegExp(`^${setting}$`, 'm'));
    }
    // V8 needs writable+executable pages: this setting would make every run crash
    expect(service).not.toMatch(/^MemoryDenyWriteExecute=yes/m);
    // the example config's store and ERP folder are writable under ProtectSystem=strict:
    // the store in the StateDirectory, the ERP folder in ReadWritePaths
    const config = parseConfig({
      ...(parseYaml(unit('config.systemd.yaml')) as object),
      api: { baseUrl: 'http://localhost/api/v2', apiKey: 'x' },
    });
    const stateDirectory = /^StateDirectory=(\S+)$/m.exec(service)?.[1];
    expect(dirname((config.store as { path: string }).path)).toBe(`/var/lib/${stateDirectory}`);
    const writable = /^ReadWritePaths=(.+)$/m.exec(service)?.[1]?.split(/\s+/) ?? [];
    expect(config.erp.type).toBe('file');
    expect(writable).toContain(config.erp.type === 'file' ? config.erp.path : undefined);
  }

  const hardeningOf = (service: string): string => service.slice(service.indexOf('# Hardening.'));

  it('run the daemon as a long-running service that restarts on failure, hardened', () => {
    const service = unit('erp-sync.service');
    expect(service).toMatch(/^Type=exec$/m);
    expect(service).toMatch(
      /^ExecStart=\/usr\/local\/bin\/erp-sync start --config \/etc\/erp-sync\/config\.yaml$/m,
    );
    expect(service).toMatch(/^Restart=on-failure$/m);
    expect(service).toMatch(/^RestartSec=5s$/m);
    // a configuration error is not retried in a loop
    expect(service).toMatch(/^RestartPreventExitStatus=64 65 78$/m);
    // reload: the daemon reads its configuration and key file again on SIGHUP
    expect(service).toMatch(/^ExecReload=\/bin\/kill -HUP \$MAINPID$/m);
    // stopping leaves room for the daemon's own 30 s shutdown grace
    expect(Number(/^TimeoutStopSec=(\d+)s$/m.exec(service)?.[1])).toBeGreaterThan(30);
    expect(service).toMatch(/^KillSignal=SIGTERM$/m);
    expect(service).toMatch(/^WantedBy=multi-user\.target$/m);
    // the example config keeps the ops server on loopback: no dashboard password needed
    const config = parseConfig({
      ...(parseYaml(unit('config.systemd.yaml')) as object),
      api: { baseUrl: 'http://localhost/api/v2', apiKey: 'x' },
    });
    expect(config.server.host).toBe('127.0.0.1');
    expect(config.redis.url).toBe('redis://127.0.0.1:6379');
    expectHardened(service);
  });

  it('keep run-once as a oneshot every minute with catch-up, hardened the same way', () => {
    const service = unit('erp-sync-once.service');
    expect(service).toMatch(/^Type=oneshot$/m);
    expect(service).toMatch(
      /^ExecStart=\/usr\/local\/bin\/erp-sync run-once --config \/etc\/erp-sync\/config\.yaml$/m,
    );
    expectHardened(service);
    expect(hardeningOf(service)).toBe(hardeningOf(unit('erp-sync.service')).split('\n[Install]')[0]);

    const timer = unit('erp-sync-once.timer');
    expect(timer).toMatch(/^OnCalendar=\*-\*-\* \*:\*:00$/m);
    expect(timer).toMatch(/^Persistent=true$/m);
    expect(timer).toMatch(/^AccuracySec=1s$/m);
    expect(timer).toMatch(/^Unit=erp-sync-once\.service$/m);
    const calendar = spawnSync('systemd-analyze', ['calendar', '--iterations=2', '*-*-* *:*:00'], {
      encoding: 'utf8',
      env: { ...process.env, TZ: 'UTC' },
    });
    const next = [
      ...calendar.stdout.matchAll(/(?:Next elapse|Iter\. #2): \S+ \S+ (\d\d):(\d\d):(\d\d) UTC$/gm),
    ];
    expect(next).toHaveLength(2);
    const [first, second] = next.map((m) => Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]));
    expect((second! - first! + 86_400) % 86_400).toBe(60);
  });
});
