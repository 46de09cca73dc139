import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../support/cli.js';

// The container scripts run under /bin/sh (dash in the image): POSIX sh, shellcheck-clean, executable.
const SCRIPTS = ['deploy/docker-entrypoint.sh', 'deploy/healthcheck.sh'];

describe('deploy shell scripts', () => {
  it('are shellcheck-clean as POSIX sh', () => {
    const result = spawnSync('shellcheck', ['--shell=sh', '--severity=style', ...SCRIPTS], {
      cwd: PROJECT_ROOT,
      encoding: 'utf8',
    });
    if (result.error) throw result.error; // not installed: .ci/run installs it
    expect(result.stdout + result.stderr).toBe('');
    expect(result.status).toBe(0);
  });

  it('parse with dash (`sh -n`) and are executable', () => {
    for (const script of SCRIPTS) {
      const file = join(PROJECT_ROOT, script);
      const parsed = spawnSync('dash', ['-n', file], { encoding: 'utf8' });
      expect(parsed.stderr).toBe('');
      expect(parsed.status).toBe(0);
      expect(statSync(file).mode & 0o111).toBe(0o111);
    }
  });
});

// The CI scripts run under bash on the CI machine.
describe('CI scripts', () => {
  it('are shellcheck-clean as bash (warnings and errors) and executable', () => {
    const scripts = [
      '.ci/run',
      '.ci/test-node',
      '.ci/use-node',
      'test/image/smoke.sh',
      'deploy/build-base-images.sh',
    ];
    const result = spawnSync('shellcheck', ['--shell=bash', '--severity=warning', ...scripts], {
      cwd: PROJECT_ROOT,
      encoding: 'utf8',
    });
    if (result.error) throw result.error;
    expect(result.stdout + result.stderr).toBe('');
    expect(result.status).toBe(0);
    for (const script of scripts) expect(statSync(join(PROJECT_ROOT, script)).mode & 0o111).toBe(0o111);
  });
});
