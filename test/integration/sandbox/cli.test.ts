import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';

const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
});

function startCli(args: string[]): { child: ChildProcess; ready: Promise<string> } {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'sandbox', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const lines = createInterface({ input: child.stdout! });
  const ready = new Promise<string>((resolve, reject) => {
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`sandbox exited early with ${code}`)));
  });
  return { child, ready };
}

describe('erp-sync sandbox (CLI)', () => {
  it('prints exactly one JSON ready line on stdout, serves the API and exits cleanly on SIGTERM', async () => {
    const { child, ready } = startCli(['--port', '0', '--seed', 'empty', '--log-level', 'info']);
    let stdout = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const line = JSON.parse(await ready);
    expect(line).toEqual({
      event: 'ready',
      url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/api\/v2$/),
      keys: {
        primary: expect.stringMatching(/^cms_/),
        secondary: expect.stringMatching(/^cms_/),
        revoked: expect.stringMatching(/^cms_/),
        no_user: expect.stringMatching(/^cms_/),
      },
    });
    const account = await fetch(`${line.url}/account`, {
      headers: { authorization: `Bearer ${line.keys.primary}` },
    });
    expect(account.status).toBe(200);
    const products = await fetch(`${line.url}/products`, {
      headers: { authorization: `Bearer ${line.keys.primary}` },
    });
    expect(((await products.json()) as { meta: { total: number } }).meta.total).toBe(0);
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(stdout.trim().split('\n')).toHaveLength(1);
  });

  it('exits with an error for a bad fault spec', async () => {
    const { child, ready } = startCli(['--port', '0', '--faults', 'error_rate=7']);
    ready.catch(() => undefined);
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).not.toBe(0);
    expect(stderr).toMatch(/error_rate/);
  });
});
