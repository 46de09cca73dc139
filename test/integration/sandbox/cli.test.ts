import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

  it('keeps a --db file across restarts and appends every request to --log-requests FILE', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandbox-cli-'));
    const db = join(dir, 'sandbox.sqlite');
    const log = join(dir, 'requests.jsonl');
    const run = async (work: (url: string, key: string) => Promise<void>): Promise<void> => {
      const { child, ready } = startCli(['--port', '0', '--db', db, '--log-requests', log]);
      const line = JSON.parse(await ready);
      await work(line.url, line.keys.primary);
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    };
    const call = (
      url: string,
      key: string,
      method: string,
      path: string,
      body?: unknown,
    ): Promise<Response> =>
      fetch(`${url}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
    let tagId = 0;
    await run(async (url, key) => {
      const r = await call(url, key, 'POST', '/tags', { name: 'Survives restart' });
      expect(r.status).toBe(201);
      tagId = ((await r.json()) as { data: { id: number } }).data.id;
    });
    await run(async (url, key) => {
      const tags = (await (await call(url, key, 'GET', '/tags?search=survives')).json()) as {
        data: { id: number }[];
      };
      expect(tags.data.map((t) => t.id)).toEqual([tagId]);
      const products = (await (await call(url, key, 'GET', '/products?per_page=1')).json()) as {
        meta: { total: number };
      };
      expect(products.meta.total).toBe(240);
    });
    const entries = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(entries.map((e) => [e.method, e.path, e.status, e.key])).toEqual([
      ['POST', '/api/v2/tags', 201, 'primary'],
      ['GET', '/api/v2/tags', 200, 'primary'],
      ['GET', '/api/v2/products', 200, 'primary'],
    ]);
    expect(entries[1].query).toEqual({ search: 'survives' });
  });

  it.each([
    ['--port', '70000'],
    ['--seed', 'full'],
    ['--fault-seed', '-1'],
  ])('refuses %s %s', async (flag, value) => {
    const { child, ready } = startCli([flag, value]);
    ready.catch(() => undefined);
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).not.toBe(0);
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
