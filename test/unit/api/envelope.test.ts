import { describe, expect, it } from 'vitest';
import { parseBulk, parseList, parseSingle } from '../../../src/api/envelope.js';
import { SchemaError, type RequestContext } from '../../../src/api/errors.js';
import { apiOrderSchema, apiProductSchema } from '../../../src/api/schemas.js';

const context: RequestContext = {
  method: 'GET',
  path: '/products',
  route: '/products',
  requestId: 'r1',
  status: 200,
};
const product = (id: number, extra: Record<string, unknown> = {}) => ({
  id,
  sku: `S${id}`,
  name: `P${id}`,
  status: 'active',
  updated_at: '2026-01-01T00:00:00Z',
  ...extra,
});

describe('parseBulk', () => {
  it('counts `updated` given as a number', () => {
    expect(parseBulk({ data: { updated: 3, not_found: [] } }, context)).toEqual({ updated: 3, notFound: [] });
  });

  it('counts `updated` given as a list', () => {
    expect(parseBulk({ data: { updated: [{ id: 1 }, { id: 2 }], not_found: [] } }, context).updated).toBe(2);
  });

  it('reads not_found entries as strings (sku), numbers (id) or objects', () => {
    const result = parseBulk(
      {
        data: {
          updated: 0,
          not_found: ['A-1', 42, { sku: 'B', variant_sku: 'B-red' }, { id: 7, variant_id: 9 }],
        },
      },
      context,
    );
    expect(result.notFound).toEqual([
      { sku: 'A-1' },
      { id: 42 },
      { sku: 'B', variant_sku: 'B-red' },
      { id: 7, variant_id: 9 },
    ]);
  });

  it('accepts a result without the data envelope and without not_found', () => {
    expect(parseBulk({ updated: 5 }, context)).toEqual({ updated: 5, notFound: [] });
  });

  it('does not count an updated it cannot read (nothing depends on it), but reports a not_found it cannot read as a SchemaError naming the field', () => {
    expect(parseBulk({ data: { updated: 'all', not_found: [] } }, context)).toEqual({
      updated: 0,
      notFound: [],
    });
    const error = (() => {
      try {
        parseBulk({ data: { updated: 1, not_found: 'GONE' } }, context);
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(SchemaError);
    expect((error as SchemaError).field).toBe('data.not_found');
  });
});

describe('parseList', () => {
  it('keeps unknown extra fields of records', () => {
    const page = parseList(
      apiProductSchema,
      { data: [product(1, { brand: { id: 2, name: 'X' } })], meta: {} },
      context,
    );
    expect(page.data[0]?.brand).toEqual({ id: 2, name: 'X' });
  });

  it('derives last_page from total when meta lacks it', () => {
    const page = parseList(
      apiProductSchema,
      { data: [product(1)], meta: { current_page: 1, per_page: 1, total: 3 } },
      context,
    );
    expect(page.meta.last_page).toBe(3);
  });

  it('accepts a bare array and assumes one page when it is short', () => {
    const page = parseList(apiProductSchema, [product(1), product(2)], context, { page: 1, per_page: 50 });
    expect(page.meta).toEqual({ current_page: 1, per_page: 50, total: 2, last_page: 1 });
  });

  it('names the endpoint and the index and field of a drifted record', () => {
    try {
      parseList(apiProductSchema, { data: [product(1), product(2, { id: '2' })], meta: {} }, context);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(SchemaError);
      expect((error as SchemaError).field).toBe('data.1.id');
      expect((error as SchemaError).endpoint).toBe('GET /products');
      expect((error as SchemaError).message).toContain('data.1.id');
    }
  });

  it('with skipInvalid, sets a drifted record aside with its error and keeps the page arithmetic of all received', () => {
    const page = parseList(
      apiProductSchema,
      { data: [product(1), product(2, { id: '2' }), product(3)] },
      context,
      { page: 1, per_page: 3 },
      { skipInvalid: true },
    );
    expect(page.data.map((p) => p.id)).toEqual([1, 3]);
    expect(page.invalid).toHaveLength(1);
    expect(page.invalid![0]).toMatchObject({ index: 1, record: { id: '2' } });
    expect(page.invalid![0]!.error.field).toBe('data.1.id');
    // Three records came for a page of three: another page may follow.
    expect(page.meta.last_page).toBe(2);
  });
});

describe('parseSingle', () => {
  it('refuses a body without the data envelope', () => {
    expect(() => parseSingle(apiProductSchema, product(1), context)).toThrow(SchemaError);
  });

  it('rejects an order status outside the enumeration', () => {
    const order = { id: 1, number: '1', status: 'lost', payment_status: 'paid' };
    try {
      parseSingle(apiOrderSchema, { data: order }, { ...context, route: '/orders/{id}' });
      expect.unreachable();
    } catch (error) {
      expect((error as SchemaError).field).toBe('data.status');
    }
  });
});
