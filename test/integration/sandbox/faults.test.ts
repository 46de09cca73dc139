import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../../src/sandbox/index.js';
import { http, nextEntry, sleep } from '../../support/sandboxHttp.js';

let sb: Sandbox;
let api: ReturnType<typeof http>;
beforeAll(async () => {
  sb = await startSandbox({ faultSeed: 7, recordBodies: true });
  api = http(sb);
});
afterAll(() => sb.close());
beforeEach(() => {
  sb.setFaults(null);
  sb.requestLog.clear();
});

const tagCount = async (): Promise<number> => (await api.get('/tags?per_page=100')).body.meta.total;

describe('faults', () => {
  it('error_rate answers 500 or 503 with a JSON error and does not process the request', async () => {
    const before = await tagCount();
    sb.setFaults('error_rate=1');
    const statuses = new Set<number>();
    for (let i = 0; i < 12; i++) {
      const r = await api.post('/tags', { name: `Err ${i}` });
      statuses.add(r.status);
      expect(['server_error', 'service_unavailable']).toContain(r.body.error);
    }
    expect([...statuses].sort()).toEqual([500, 503]);
    sb.setFaults(null);
    expect(await tagCount()).toBe(before);
    expect(sb.requestLog.entries().filter((e) => e.fault === 'error')).toHaveLength(12);
  });

  it('rate_limit answers 429 rate_limited with Retry-After per key, without processing', async () => {
    sb.setFaults('rate_limit=2/s');
    const before = Date.now();
    // Sent at once: one after the other, a loaded machine could take long enough between them
    // for the bucket to refill (half a second a token).
    const results = await Promise.all(
      [0, 1, 2, 3].map((i) => api.post('/tags', { name: `Limited ${before}-${i}` })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 201, 429, 429]);
    const limited = results.find((r) => r.status === 429);
    expect(limited?.body.error).toBe('rate_limited');
    expect(Number(limited?.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await http(sb, 'secondary').get('/account')).status).toBe(200);
    sb.setFaults(null);
    const names = (await api.get(`/tags?search=Limited ${before}`)).body.data;
    expect(names).toHaveLength(2);
  });

  it('drop_rate processes the request, then closes the connection mid-response', async () => {
    sb.setFaults('drop_rate=1,only=POST /tags');
    const response = await fetch(`${sb.url}/tags`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sb.keys.primary}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Dropped' }),
    });
    // The status line and headers arrive, the body breaks off half-way.
    expect(response.status).toBe(201);
    expect(Number(response.headers.get('content-length'))).toBeGreaterThan(10);
    await expect(response.text()).rejects.toThrow();
    expect((await api.get('/tags?search=Dropped')).body.meta.total).toBe(1);
    const entry = sb.requestLog.entries().find((e) => e.method === 'POST');
    expect(entry).toMatchObject({ status: null, fault: 'drop', key: 'primary', body: { name: 'Dropped' } });
  });

  it('stall_rate processes the request and never answers', async () => {
    sb.setFaults('stall_rate=1,only=POST /tags');
    const abort = new AbortController();
    let settled = false;
    const pending = fetch(`${sb.url}/tags`, {
      method: 'POST',
      signal: abort.signal,
      headers: { authorization: `Bearer ${sb.keys.primary}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Stalled' }),
    }).finally(() => (settled = true));
    // Logged once the sandbox is done with it: processed, and swallowed instead of answered.
    const entry = await nextEntry(sb, (e) => e.method === 'POST');
    expect(entry).toMatchObject({ status: null, fault: 'stall' });
    expect((await api.get('/tags?search=Stalled')).body.meta.total).toBe(1);
    await sleep(300);
    expect(settled).toBe(false);
    abort.abort();
    await expect(pending).rejects.toThrow();
  });

  it('close() ends stalled responses', async () => {
    const own = await startSandbox({ faults: 'stall_rate=1' });
    const pending = fetch(`${own.url}/account`, { headers: { authorization: `Bearer ${own.keys.primary}` } });
    await nextEntry(own, (e) => e.fault === 'stall');
    const started = Date.now();
    await own.close();
    // Waiting for the stalled response instead would take until the client gave up: forever here.
    expect(Date.now() - started).toBeLessThan(5_000);
    await expect(pending).rejects.toThrow();
  });

  it('latency delays each request by MIN-MAX ms', async () => {
    sb.setFaults('latency=150-200');
    const started = Date.now();
    expect((await api.get('/account')).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(145);
  });

  it('only= limits faults to matching method and path prefixes', async () => {
    sb.setFaults('error_rate=1,only=GET /account|PATCH /products/stock');
    expect((await api.get('/account')).status).toBeGreaterThanOrEqual(500);
    expect(
      (await api.patch('/products/stock/bulk', { items: [{ id: 1, quantity: 1 }] })).status,
    ).toBeGreaterThanOrEqual(500);
    expect((await api.get('/products?per_page=1')).status).toBe(200);
    expect((await api.post('/tags', { name: 'Only' })).status).toBe(201);
    expect((await api.patch('/products/1/stock', { quantity: 1 })).status).toBe(200);
  });

  it('is reproducible with the same fault seed', async () => {
    const run = async (): Promise<number[]> => {
      const own = await startSandbox({ seed: 'empty', faults: 'error_rate=0.5', faultSeed: 42 });
      const statuses = [];
      for (let i = 0; i < 16; i++) statuses.push((await http(own).get('/account')).status);
      await own.close();
      return statuses;
    };
    const first = await run();
    expect(new Set(first).size).toBeGreaterThan(1);
    expect(await run()).toEqual(first);
  });

  it('reproduces the same sequence of every fault kind from --fault-seed, only on matching requests', async () => {
    const run = async (seed: number): Promise<(string | null)[]> => {
      const own = await startSandbox({
        seed: 'empty',
        faults: 'latency=0-3,error_rate=0.25,drop_rate=0.25,stall_rate=0.25,only=GET /account',
        faultSeed: seed,
      });
      for (let i = 0; i < 20; i++) {
        // One at a time (each request draws its faults on arrival): the next goes once this one
        // is in the log, and a stalled one is given up only then.
        const abort = new AbortController();
        const done = fetch(`${own.url}/${i % 4 === 3 ? 'stats' : 'account'}?i=${i}`, {
          headers: { authorization: `Bearer ${own.keys.primary}` },
          signal: abort.signal,
        })
          .then((r) => r.text())
          .catch(() => null);
        await nextEntry(own, (e) => e.query.i === String(i));
        abort.abort();
        await done;
      }
      const faults = own.requestLog
        .entries()
        .sort((a, b) => Number(a.query.i) - Number(b.query.i))
        .map((e) => (e.path.endsWith('/stats') ? `stats:${e.fault}` : (e.fault ?? null)));
      await own.close();
      return faults;
    };
    const first = await run(11);
    expect(first).toHaveLength(20);
    expect(first.filter((f) => f?.startsWith('stats'))).toEqual(Array(5).fill('stats:null'));
    expect(new Set(first.filter((f) => !f?.startsWith('stats')))).toEqual(
      new Set(['error', 'drop', 'stall', null]),
    );
    expect(await run(11)).toEqual(first);
    expect(await run(12)).not.toEqual(first);
  });

  it('refuses a bad fault spec with a message naming it', async () => {
    expect(() => sb.setFaults('error_rate=2')).toThrow(/error_rate/);
    expect(() => sb.setFaults('explode=1')).toThrow(/explode/);
    await expect(startSandbox({ faults: 'rate_limit=fast' })).rejects.toThrow(/rate_limit/);
  });
});

describe('request log', () => {
  it('records method, path without query, query, status, key label, time and duration', async () => {
    await api.get('/products?per_page=2&search=demo');
    await http(sb, null).get('/account');
    await http(sb, 'secondary').get('/nope');
    const [a, b, c] = sb.requestLog.entries();
    expect(a).toMatchObject({
      method: 'GET',
      path: '/api/v2/products',
      query: { per_page: '2', search: 'demo' },
      status: 200,
      key: 'primary',
      fault: null,
    });
    expect(a?.at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(a?.durationMs).toBeGreaterThanOrEqual(0);
    expect(b).toMatchObject({ status: 401, key: null });
    expect(c).toMatchObject({ status: 404, key: 'secondary' });
    sb.requestLog.clear();
    expect(sb.requestLog.entries()).toEqual([]);
  });

  it('tells a listener of each entry as it is written, in time to fault the next request', async () => {
    const seen: string[] = [];
    const stop = sb.requestLog.onEntry((entry) => {
      seen.push(entry.path);
      sb.setFaults('error_rate=1');
    });
    expect((await api.get('/account')).status).toBe(200);
    expect((await api.get('/account')).status).toBeGreaterThanOrEqual(500);
    stop();
    sb.setFaults(null);
    expect((await api.get('/stats')).status).toBe(200);
    expect(seen).toEqual(['/api/v2/account', '/api/v2/account']);
  });

  it('keeps parsed bodies when recordBodies is on, and mirrors to a JSON-lines file', async () => {
    expect(sb.requestLog.entries()).toEqual([]);
    await api.patch('/products/stock/bulk', { items: [{ sku: 'DEMO-0001', quantity: 3 }] });
    expect(sb.requestLog.entries()[0]?.body).toEqual({ items: [{ sku: 'DEMO-0001', quantity: 3 }] });
    const file = join(mkdtempSync(join(tmpdir(), 'sandbox-log-')), 'requests.jsonl');
    const own = await startSandbox({ seed: 'empty', logRequests: file });
    await http(own).get('/account');
    await http(own, 'revoked').get('/account');
    await own.close();
    const lines = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.path, l.status, l.key])).toEqual([
      ['/api/v2/account', 200, 'primary'],
      ['/api/v2/account', 401, 'revoked'],
    ]);
    expect(lines[0].body).toBeUndefined();
  });
});
