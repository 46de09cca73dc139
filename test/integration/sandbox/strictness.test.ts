import { describe, expect, it } from 'vitest';
import { createApiClient } from '../../../src/api/createApiClient.js';
import { http } from '../../support/sandboxHttp.js';
import { useSandbox } from '../../support/useSandbox.js';

const suite = useSandbox({ recordBodies: true });
const api = suite.api;

/** A raw request, headers exactly as given (no key, no content type added). */
async function raw(method: string, path: string, headers: Record<string, string>, body?: string) {
  const response = await fetch(`${suite.sandbox.url}${path}`, {
    method,
    headers,
    ...(body !== undefined ? { body } : {}),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

describe('keys the sandbox refuses to guess at', () => {
  it('refuses Authorization and X-Api-Key carrying different keys, and accepts them carrying the same', async () => {
    const { primary, secondary } = suite.sandbox.keys;
    const both = await http(suite.sandbox, null).get('/account', {
      authorization: `Bearer ${primary}`,
      'x-api-key': secondary,
    });
    expect(both.status).toBe(401);
    expect(both.body).toMatchObject({
      error: 'invalid_token',
      message: expect.stringContaining('different keys'),
    });
    const same = await http(suite.sandbox, null).get('/account', {
      authorization: `Bearer ${primary}`,
      'x-api-key': primary,
    });
    expect(same.status).toBe(200);
  });

  it('refuses a bare key or another scheme in Authorization', async () => {
    for (const authorization of [
      suite.sandbox.keys.primary,
      `Basic ${suite.sandbox.keys.primary}`,
      'Bearer a b',
    ]) {
      const r = await http(suite.sandbox, null).get('/account', { authorization });
      expect(r.status, authorization).toBe(401);
      expect(r.body.error).toBe('invalid_token');
      expect(JSON.stringify(r.body)).not.toContain(suite.sandbox.keys.primary);
    }
    // Not even with a good X-Api-Key beside it: the Authorization header is malformed.
    const withHeader = await http(suite.sandbox, null).get('/account', {
      authorization: suite.sandbox.keys.primary,
      'x-api-key': suite.sandbox.keys.primary,
    });
    expect(withHeader.status).toBe(401);
  });
});

describe('request bodies are JSON', () => {
  const auth = (): Record<string, string> => ({ authorization: `Bearer ${suite.sandbox.keys.primary}` });

  it('answers 415 for a body of another content type, or of none, and writes nothing', async () => {
    const before = (await api.get('/tags?per_page=1')).body.meta.total;
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml', undefined]) {
      const headers = type ? { ...auth(), 'content-type': type } : auth();
      const r = await raw(
        'POST',
        '/tags',
        headers,
        type === undefined ? '{"name":"No type"}' : '{"name":"Typed"}',
      );
      expect(r.status, String(type)).toBe(415);
      expect(r.body).toMatchObject({ error: 'unsupported_media_type' });
    }
    expect((await api.get('/tags?per_page=1')).body.meta.total).toBe(before);
  });

  it('accepts application/json with a charset and +json types, and a request without a body whatever its type', async () => {
    const charset = await raw(
      'POST',
      '/tags',
      { ...auth(), 'content-type': 'application/json; charset=utf-8' },
      '{"name":"Charset"}',
    );
    const vendor = await raw(
      'POST',
      '/tags',
      { ...auth(), 'content-type': 'application/vnd.api+json' },
      '{"name":"Vnd"}',
    );
    expect([charset.status, vendor.status]).toEqual([201, 201]);
    const noBody = await raw('POST', '/orders/1/invoice', { ...auth(), 'content-type': 'text/plain' });
    expect(noBody.status).toBeLessThan(300);
  });

  it('checks the key before the content type', async () => {
    const r = await raw('POST', '/tags', { 'content-type': 'text/plain' }, 'x');
    expect(r.status).toBe(401);
  });
});

describe('order lines are bounded', () => {
  const lines = (n: number) => Array.from({ length: n }, () => ({ product_id: 1, quantity: 1 }));

  it('accepts 500 lines and refuses 501 with 422 naming items', async () => {
    const ok = await api.post('/orders', { customer_id: 1, items: lines(500) });
    expect(ok.status).toBe(201);
    expect(ok.body.data.items).toHaveLength(500);
    const tooMany = await api.post('/orders', { customer_id: 1, items: lines(501) });
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.errors.items).toEqual(['must have at most 500 lines, got 501']);
  });
});

describe('SKUs are one form: NFC without surrounding blanks', () => {
  const composed = 'ȘURUB-Ă1'; // U+0218, U+0102
  const decomposed = composed.normalize('NFD');

  it('stores a product SKU normalised and refuses a second product that differs only in form', async () => {
    expect(decomposed).not.toBe(composed);
    const created = await api.post('/products', { name: 'Șurub', sku: ` ${decomposed} ` });
    expect(created.status).toBe(201);
    expect(created.body.data.sku).toBe(composed);
    for (const sku of [composed, `${composed} `, decomposed]) {
      const again = await api.post('/products', { name: 'Twin', sku });
      expect(again.status, JSON.stringify(sku)).toBe(422);
      expect(again.body.errors.sku).toEqual(['is already used by another product']);
    }
  });

  it('finds the product by any form in bulk writes and orders, echoing not_found as sent', async () => {
    await api.post('/products', { name: 'Piuliță', sku: 'PIULIȚĂ-7' });
    const bulk = await api.patch('/products/stock/bulk', {
      items: [
        { sku: ' PIULIȚĂ-7'.normalize('NFD'), quantity: 7 },
        { sku: ' NOPE ', quantity: 1 },
      ],
    });
    expect(bulk.body.data).toEqual({ updated: 1, not_found: [{ sku: ' NOPE ' }] });
    const order = await api.post('/orders', {
      customer_id: 1,
      items: [{ sku: 'PIULIȚĂ-7 '.normalize('NFD'), quantity: 2 }],
    });
    expect(order.status).toBe(201);
    expect(order.body.data.items[0].sku).toBe('PIULIȚĂ-7');
  });
});

describe('our own client with the strict sandbox', () => {
  it('sends JSON with a JSON content type and a Bearer key on every write it makes', async () => {
    const client = createApiClient({
      baseUrl: suite.sandbox.url,
      apiKey: suite.sandbox.keys.primary,
      retries: 0,
    });
    try {
      suite.sandbox.requestLog.clear();
      const tag = await client.tags.create({ name: 'Client tag' });
      await client.products.bulkStock([{ sku: 'DEMO-0001', quantity: 3 }]);
      const order = await client.orders.create({ customer_id: 1, items: [{ product_id: 1, quantity: 1 }] });
      await client.orders.update(order.id, { status: 'confirmed' });
      await client.orders.createInvoice(order.id);
      expect(tag.name).toBe('Client tag');
      const writes = suite.sandbox.requestLog.entries().filter((e) => e.method !== 'GET');
      expect(writes.map((e) => e.status)).toEqual([201, 200, 201, 200, 201]);
    } finally {
      await client.close();
    }
  });
});
