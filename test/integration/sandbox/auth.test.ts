import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../../src/sandbox/index.js';
import { http } from '../../support/sandboxHttp.js';

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb.close());

describe('authentication', () => {
  it('refuses a request without a key with 401 missing_token', async () => {
    const r = await http(sb, null).get('/account');
    expect(r.status).toBe(401);
    expect(r.body).toMatchObject({ error: 'missing_token' });
    expect(typeof r.body.message).toBe('string');
  });

  it('checks the key before routing: an unknown path without a key is 401', async () => {
    expect((await http(sb, null).get('/no/such/path')).status).toBe(401);
    expect((await http(sb, null).call('DELETE', '/products')).status).toBe(401);
  });

  it('refuses an unknown key and a revoked key with 401 invalid_token', async () => {
    const unknown = await http(sb, null).get('/account', { authorization: 'Bearer cms_nope' });
    expect(unknown.status).toBe(401);
    expect(unknown.body.error).toBe('invalid_token');
    const revoked = await http(sb, 'revoked').get('/account');
    expect(revoked.status).toBe(401);
    expect(revoked.body.error).toBe('invalid_token');
  });

  it('refuses the key of a company with no user with 403 no_user', async () => {
    const r = await http(sb, 'no_user').get('/products');
    expect(r.status).toBe(403);
    expect(r.body.error).toBe('no_user');
  });

  it('accepts the Bearer scheme in any case and the X-Api-Key header', async () => {
    const lower = await http(sb, null).get('/account', { authorization: `bearer ${sb.keys.primary}` });
    const upper = await http(sb, null).get('/account', { authorization: `BEARER ${sb.keys.primary}` });
    const header = await http(sb, null).get('/account', { 'x-api-key': sb.keys.primary });
    expect([lower.status, upper.status, header.status]).toEqual([200, 200, 200]);
    expect(header.body.data.name).toBe('Demo Retail SRL');
  });

  it('treats an empty key as absent (missing_token) and reads X-Api-Key when Authorization has none', async () => {
    const cases: Record<string, string>[] = [
      { authorization: 'Bearer' },
      { authorization: '  ' },
      { 'x-api-key': ' ' },
    ];
    for (const headers of cases) {
      const r = await http(sb, null).get('/account', headers);
      expect(r.status, JSON.stringify(headers)).toBe(401);
      expect(r.body.error).toBe('missing_token');
    }
    const both = await http(sb, null).get('/account', {
      authorization: 'Bearer',
      'x-api-key': sb.keys.secondary,
    });
    expect(both.body.data.name).toBe('Second Shop SRL');
  });

  it('uses stable demo keys with the cms_ prefix', () => {
    for (const key of Object.values(sb.keys)) expect(key).toMatch(/^cms_[0-9a-f]{40}$/);
    expect(sb.keys.primary).toBe('cms_9c1f4e7a2b8d5063f1a7c4e92d6b8035a7e1c4f2');
  });
});

describe('routing and body errors', () => {
  it('answers an unknown path with 404 not_found', async () => {
    const r = await http(sb).get('/no/such/path');
    expect(r.status).toBe(404);
    expect(r.body.error).toBe('not_found');
  });

  it('answers a known path with the wrong method with 405 method_not_allowed and Allow', async () => {
    const r = await http(sb).call('DELETE', '/products');
    expect(r.status).toBe(405);
    expect(r.body.error).toBe('method_not_allowed');
    expect(r.headers.get('allow')).toContain('POST');
    expect((await http(sb).get('/products/stock/bulk')).status).toBe(405);
    expect((await http(sb).post('/orders/1')).status).toBe(405);
  });

  it.each([
    ['/account', 'POST', 'GET, HEAD'],
    ['/stats', 'DELETE', 'GET, HEAD'],
    ['/products', 'PUT', 'GET, HEAD, POST'],
    ['/products/1', 'DELETE', 'GET, HEAD, PATCH'],
    ['/products/1/price', 'PUT', 'PATCH'],
    ['/products/1/stock', 'POST', 'PATCH'],
    ['/products/prices/bulk', 'POST', 'PATCH'],
    ['/products/stock/bulk', 'PUT', 'PATCH'],
    ['/products/stock/list', 'POST', 'GET, HEAD'],
    ['/orders', 'PATCH', 'GET, HEAD, POST'],
    ['/orders/1', 'DELETE', 'GET, HEAD, PATCH'],
    ['/orders/1/awb', 'GET', 'POST'],
    ['/orders/1/invoice', 'PATCH', 'POST'],
    ['/customers', 'POST', 'GET, HEAD'],
    ['/customers/1', 'DELETE', 'GET, HEAD, PATCH'],
    ['/tags', 'DELETE', 'GET, HEAD, POST'],
    ['/tags/1', 'GET', 'DELETE, PUT'],
    ['/tags/1/attach', 'GET', 'POST'],
    ['/tags/1/detach', 'PUT', 'POST'],
    ['/categories', 'POST', 'GET, HEAD'],
    ['/categories/1', 'PATCH', 'GET, HEAD'],
    ['/returns', 'POST', 'GET, HEAD'],
    ['/returns/1', 'DELETE', 'GET, HEAD'],
    ['/offers', 'POST', 'GET, HEAD'],
    ['/offers/1', 'PUT', 'GET, HEAD'],
    ['/marketplaces/list', 'POST', 'GET, HEAD'],
    ['/couriers', 'POST', 'GET, HEAD'],
    ['/billing-software', 'DELETE', 'GET, HEAD'],
    ['/websites/list', 'PATCH', 'GET, HEAD'],
    ['/fulfillments/list', 'POST', 'GET, HEAD'],
    ['/general/currencies', 'POST', 'GET, HEAD'],
    ['/general/languages', 'PUT', 'GET, HEAD'],
    ['/general/countries', 'DELETE', 'GET, HEAD'],
  ])('answers %s with %s as 405 and lists the allowed methods', async (path, method, allowed) => {
    const r = await http(sb).call(method, path, method === 'GET' ? undefined : {});
    expect(r.status).toBe(405);
    expect(r.body.error).toBe('method_not_allowed');
    expect(
      r.headers
        .get('allow')
        ?.split(',')
        .map((m) => m.trim())
        .sort()
        .join(', '),
    ).toBe(allowed);
  });

  it('answers a non-integer id with 404', async () => {
    expect((await http(sb).get('/products/abc')).status).toBe(404);
    expect((await http(sb).get('/orders/0')).status).toBe(404);
  });

  it('answers a path with a broken percent-escape like an unknown path: 401 without a key, else 404', async () => {
    for (const path of ['/products/%', '/products/%E0%A4%A', '/tags/%zz/attach']) {
      const anonymous = await http(sb, null).get(path);
      expect(anonymous.status).toBe(401);
      expect(anonymous.body.error).toBe('missing_token');
      const r = await http(sb).get(path);
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ error: 'not_found', message: expect.any(String) });
    }
  });

  it('answers malformed JSON with 422 validation_error and an errors map', async () => {
    const r = await http(sb).post('/products', '{"name": ');
    expect(r.status).toBe(422);
    expect(r.body.error).toBe('validation_error');
    expect(r.body.errors.body[0]).toMatch(/malformed JSON/);
  });

  it('answers a body over 1 MiB with 413 payload_too_large', async () => {
    const r = await http(sb).post('/products', { name: 'x', long_description: 'y'.repeat(1024 * 1024) });
    expect(r.status).toBe(413);
    expect(r.body.error).toBe('payload_too_large');
  });

  it('accepts a body of exactly 1 MiB and refuses one byte more', async () => {
    const sized = (bytes: number): string => {
      const head = '{"name":"Big","padding":"';
      return `${head}${'p'.repeat(bytes - head.length - 2)}"}`;
    };
    const exact = await http(sb).post('/products', sized(1024 * 1024));
    expect(exact.status).toBe(201);
    const over = await http(sb).post('/products', sized(1024 * 1024 + 1));
    expect(over.status).toBe(413);
    expect(over.body.error).toBe('payload_too_large');
  });

  it('answers a JSON body that is not an object with 422', async () => {
    const r = await http(sb).post('/products', [1, 2]);
    expect(r.status).toBe(422);
    expect(r.body.errors.body).toBeDefined();
  });
});
