import { describe, expect, it } from 'vitest';
import { sleep } from '../../support/sandboxHttp.js';
import { useSandbox } from '../../support/useSandbox.js';

const suite = useSandbox();
const api = suite.api;

describe('customers', () => {
  it('lists by id with meta and the full record shape', async () => {
    const r = await api.get('/customers?per_page=10&page=2');
    expect(r.body.meta).toMatchObject({ current_page: 2, per_page: 10, total: 60, last_page: 6 });
    expect(r.body.data[0].id).toBeLessThan(r.body.data[1].id);
    expect(Object.keys(r.body.data[0]).sort()).toEqual(
      [
        'address',
        'company_name',
        'created_at',
        'cui',
        'email',
        'id',
        'name',
        'notes',
        'orders_count',
        'phone',
        'reg_com',
        'updated_at',
      ].sort(),
    );
  });

  it('searches name, email, phone, company name and CUI case-insensitively', async () => {
    const c = (await api.get('/customers/5')).body.data;
    expect(c.company_name).not.toBeNull();
    for (const term of [
      c.name.toUpperCase(),
      c.email.slice(0, 6),
      c.phone.slice(2),
      c.company_name.toLowerCase(),
      c.cui,
    ])
      expect(
        (await api.get(`/customers?per_page=100&search=${encodeURIComponent(term)}`)).body.data.map(
          (x: { id: number }) => x.id,
        ),
      ).toContain(5);
  });

  it('updates fields and refuses an empty name, long notes and no field', async () => {
    const r = await api.patch('/customers/7', {
      name: 'Ion Nou',
      email: 'ion@example.ro',
      phone: '0711',
      company_name: 'SC X',
      cui: 'RO1',
      reg_com: 'J1',
      notes: 'ok',
    });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ name: 'Ion Nou', email: 'ion@example.ro', cui: 'RO1', notes: 'ok' });
    const bad = await api.patch('/customers/7', { name: ' ', notes: 'x'.repeat(2001) });
    expect(Object.keys(bad.body.errors).sort()).toEqual(['name', 'notes']);
    expect((await api.patch('/customers/7', { id: 3 })).status).toBe(422);
    expect((await api.get('/customers/999999')).status).toBe(404);
  });
});

describe('tags', () => {
  it('lists the demo tags and searches by name', async () => {
    const r = await api.get('/tags');
    expect(r.body.meta.total).toBe(15);
    expect(Object.keys(r.body.data[0]).sort()).toEqual([
      'color',
      'created_at',
      'id',
      'name',
      'products_count',
      'updated_at',
    ]);
    expect((await api.get('/tags?search=BEST')).body.data.map((t: { name: string }) => t.name)).toEqual([
      'Best seller',
    ]);
  });

  it('creates with 201 and refuses a duplicate name in any case, a long name and a long color', async () => {
    const r = await api.post('/tags', { name: 'Vară', color: '#ffcc00' });
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({ name: 'Vară', color: '#ffcc00', products_count: 0 });
    expect((await api.post('/tags', { name: 'VARĂ' })).body.errors.name).toBeDefined();
    const bad = await api.post('/tags', { name: 'n'.repeat(61), color: 'c'.repeat(33) });
    expect(Object.keys(bad.body.errors).sort()).toEqual(['color', 'name']);
    expect((await api.post('/tags', {})).body.errors.name).toBeDefined();
  });

  it('renames and recolors with PUT, refusing a clash and an empty update', async () => {
    const t = (await api.post('/tags', { name: 'Temp' })).body.data;
    const r = await api.put(`/tags/${t.id}`, { name: 'Temporar', color: 'blue' });
    expect(r.body.data).toMatchObject({ id: t.id, name: 'Temporar', color: 'blue' });
    expect((await api.put(`/tags/${t.id}`, { name: 'temporar' })).status).toBe(200);
    expect((await api.put(`/tags/${t.id}`, { name: 'nou' })).status).toBe(422);
    expect((await api.put(`/tags/${t.id}`, {})).status).toBe(422);
  });

  it('attaches and detaches products, moving their updated_at, and refuses unknown ids by name', async () => {
    const t = (await api.post('/tags', { name: 'Attach' })).body.data;
    const p = (await api.post('/products', { name: 'Tagged' })).body.data;
    await sleep(1100);
    const attached = await api.post(`/tags/${t.id}/attach`, { product_ids: [p.id, 1] });
    expect(attached.status).toBe(200);
    expect(attached.body.data).toMatchObject({ tag_id: t.id, attached: 2 });
    const after = (await api.get(`/products/${p.id}`)).body.data;
    expect(after.tags).toEqual([{ id: t.id, name: 'Attach', color: null }]);
    expect(after.updated_at > p.updated_at).toBe(true);
    const unknown = await api.post(`/tags/${t.id}/attach`, { product_ids: [p.id, 999998, 999999] });
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors.product_ids[0]).toContain('999998, 999999');
    expect((await api.post(`/tags/${t.id}/attach`, {})).status).toBe(422);
    expect((await api.post(`/tags/${t.id}/attach`, { product_ids: ['a'] })).status).toBe(422);
    const detached = await api.post(`/tags/${t.id}/detach`, { product_ids: [p.id] });
    expect(detached.body.data).toMatchObject({ detached: 1 });
    expect((await api.get(`/products/${p.id}`)).body.data.tags).toEqual([]);
  });

  it('detaches a deleted tag from its products', async () => {
    const t = (await api.post('/tags', { name: 'Doomed' })).body.data;
    await api.post(`/tags/${t.id}/attach`, { product_ids: [2] });
    const r = await api.delete(`/tags/${t.id}`);
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ id: t.id, deleted: true, detached: 1 });
    expect((await api.get('/products/2')).body.data.tags.map((x: { id: number }) => x.id)).not.toContain(
      t.id,
    );
    expect((await api.delete(`/tags/${t.id}`)).status).toBe(404);
  });
});
