import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { createProgram } from '../../../src/cli/createProgram.js';

const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
});

function startCli(args: string[]): { child: ChildProcess; ready: Promise<string>; stdout: () => string } {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'sandbox', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stdout = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const lines = createInterface({ input: child.stdout! });
  const ready = new Promise<string>((resolve, reject) => {
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`sandbox exited early with ${code}`)));
  });
  return { child, ready, stdout: () => stdout };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON under test
type Json = any;

const stop = async (child: ChildProcess): Promise<number | null> => {
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  return exited;
};

const call = async (
  url: string,
  key: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Json }> => {
  const r = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: r.status, body: await r.json() };
};

describe('erp-sync sandbox (CLI)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-cli-'));
  const db = join(dir, 'sandbox.sqlite');
  const log = join(dir, 'requests.jsonl');
  const args = ['--port', '0', '--db', db, '--log-requests', log];
  let tagId = 0;

  it('prints exactly one JSON ready line on stdout, serves --seed empty and exits cleanly on SIGTERM', async () => {
    const { child, ready, stdout } = startCli([...args, '--seed', 'empty', '--log-level', 'info']);
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
    expect((await call(line.url, line.keys.primary, 'GET', '/account')).status).toBe(200);
    expect((await call(line.url, line.keys.primary, 'GET', '/products')).body.meta.total).toBe(0);
    const tag = await call(line.url, line.keys.primary, 'POST', '/tags', { name: 'Survives restart' });
    expect(tag.status).toBe(201);
    tagId = tag.body.data.id;
    expect(await stop(child)).toBe(0);
    expect(stdout().trim().split('\n')).toHaveLength(1);
  });

  it('reuses the --db file as it is after a restart and appends every request to --log-requests FILE', async () => {
    expect(tagId).toBeGreaterThan(0);
    const { child, ready } = startCli(args);
    const line = JSON.parse(await ready);
    const tags = await call(line.url, line.keys.primary, 'GET', '/tags?search=survives');
    expect(tags.body.data.map((t: { id: number }) => t.id)).toEqual([tagId]);
    expect((await call(line.url, line.keys.primary, 'GET', '/products')).body.meta.total).toBe(0);
    expect(await stop(child)).toBe(0);
    const entries = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(entries.map((e) => [e.method, e.path, e.status, e.key])).toEqual([
      ['GET', '/api/v2/account', 200, 'primary'],
      ['GET', '/api/v2/products', 200, 'primary'],
      ['POST', '/api/v2/tags', 201, 'primary'],
      ['GET', '/api/v2/tags', 200, 'primary'],
      ['GET', '/api/v2/products', 200, 'primary'],
    ]);
    expect(entries[3].query).toEqual({ search: 'survives' });
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

  it.each([
    ['--port', '70000', /--port/],
    ['--port', 'abc', /--port/],
    ['--seed', 'full', /demo, empty/],
    ['--fault-seed', '1.5', /--fault-seed/],
    ['--orders-order', 'random', /desc, asc/],
    ['--extra-products', '-3', /extra-products|unknown option/],
  ])('refuses %s %s before starting anything', async (flag, value, message) => {
    const program = createProgram().configureOutput({ writeErr: () => undefined });
    await expect(program.parseAsync(['node', 'erp-sync', 'sandbox', flag, value])).rejects.toThrow(message);
  });
});
