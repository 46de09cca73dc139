import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../../src/sandbox/index.js';
import { http } from '../../support/sandboxHttp.js';

/**
 * What only the database shows: stored connection credentials (which no response may contain) and
 * the notifications a status move records. The sandbox runs on a --db file the test reads beside it.
 */
let sb: Sandbox;
let db: Database.Database;
beforeAll(async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'sandbox-storage-')), 'sandbox.sqlite');
  sb = await startSandbox({ db: file, recordBodies: true });
  db = new Database(file, { readonly: true });
});
afterAll(async () => {
  db.close();
  await sb.close();
});

/** Every string inside the stored credentials (user names, passwords, tokens...). */
function storedSecrets(): string[] {
  const secrets = new Set<string>();
  const walk = (v: unknown): void => {
    if (typeof v === 'string' && v.length >= 4) secrets.add(v);
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  for (const row of db.prepare('SELECT credentials FROM connections WHERE credentials IS NOT NULL').all())
    walk(JSON.parse((row as { credentials: string }).credentials));
  return [...secrets];
}

describe('stored credentials', () => {
  it('never appear in any response of either company', async () => {
    const secrets = storedSecrets();
    expect(secrets.length).toBeGreaterThan(10);
    const paths = [
      '/marketplaces/list',
      '/couriers',
      '/billing-software',
      '/websites/list',
      '/fulfillments/list',
      '/account',
      '/stats',
      '/offers?per_page=100',
      '/orders?per_page=100',
      '/returns',
    ];
    let checked = 0;
    for (const key of ['primary', 'secondary'] as const)
      for (const path of paths) {
        const r = await fetch(`${sb.url}${path}`, { headers: { authorization: `Bearer ${sb.keys[key]}` } });
        expect(r.status).toBe(200);
        const text = await r.text();
        for (const secret of secrets) expect(text.includes(secret), `${key} ${path}: ${secret}`).toBe(false);
        checked += 1;
      }
    expect(checked).toBe(20);
  });

  it('never appear in the request log, and neither do API keys', async () => {
    const log = JSON.stringify(sb.requestLog.entries());
    expect(log).toContain('/api/v2/couriers');
    for (const secret of [...storedSecrets(), ...Object.values(sb.keys)])
      expect(log.includes(secret)).toBe(false);
  });
});

describe('status moves', () => {
  it('record one order.status_changed notification per move, none for a no-op or a refused move', async () => {
    const api = http(sb);
    const o = (await api.post('/orders', { customer_id: 1, items: [{ product_id: 1, quantity: 1 }] })).body
      .data;
    await api.patch(`/orders/${o.id}`, { status: 'confirmed', note: 'call first' });
    await api.patch(`/orders/${o.id}`, { status: 'confirmed' });
    expect((await api.patch(`/orders/${o.id}`, { status: 'new' })).status).toBe(422);
    await api.patch(`/orders/${o.id}`, { status: 'processing' });
    const rows = db
      .prepare('SELECT company_id, type, payload FROM notifications WHERE order_id = ? ORDER BY id')
      .all(o.id) as { company_id: number; type: string; payload: string }[];
    expect(rows.map((r) => [r.type, JSON.parse(r.payload)])).toEqual([
      ['order.status_changed', { from: 'new', to: 'confirmed', note: 'call first' }],
      ['order.status_changed', { from: 'confirmed', to: 'processing', note: null }],
    ]);
    expect(rows.every((r) => r.company_id === 1)).toBe(true);
    const history = (await api.get(`/orders/${o.id}`)).body.data.history;
    expect(history.map((h: { from: string | null; to: string }) => [h.from, h.to])).toEqual([
      [null, 'new'],
      ['new', 'confirmed'],
      ['confirmed', 'processing'],
    ]);
    expect(Object.keys(history[1]).sort()).toEqual(['at', 'from', 'note', 'to']);
  });
});
