import type { Db } from '../db/openDatabase.js';
import { stmt } from '../db/statements.js';
import { notFound } from '../http/apiError.js';
import { bodyObject } from '../http/fields.js';
import { ListQuery, listEnvelope } from '../http/listQuery.js';
import { created, idParam, ok, type Router } from '../http/router.js';
import { bulkPrices } from '../products/bulkPrices.js';
import { PRODUCT_STATUSES } from '../products/productInput.js';
import {
  productById,
  productCount,
  serializeProduct,
  serializeProducts,
  type ProductRow,
  type VariantRow,
} from '../products/productRepo.js';
import { createProduct, updatePrice, updateProduct } from '../products/productWrites.js';
import { bulkStock, updateStock } from '../products/stockWrites.js';

const SEARCH =
  '(icontains(p.name, @q) OR icontains(p.sku, @q) OR icontains(p.ean, @q) OR icontains(p.mpn, @q)' +
  ' OR EXISTS (SELECT 1 FROM variants v WHERE v.product_id = p.id AND icontains(v.sku, @q)))';

/** `meta.total`: the cached company count when unfiltered, else a COUNT(*) of the filtered clause. */
function countProducts(db: Db, companyId: number, filteredClause: string | null, params: object): number {
  if (filteredClause === null) return productCount(db, companyId);
  return (
    stmt<[object], { n: number }>(db, `SELECT COUNT(*) AS n FROM products p WHERE ${filteredClause}`).get(
      params,
    )?.n ?? 0
  );
}

/** `bulkMax`: the most items a bulk request may carry (1000 unless the sandbox stands in for a stricter platform). */
export function registerProductRoutes(router: Router, bulkMax?: number): void {
  router.get('/products', ({ db, company, query }) => {
    const q = new ListQuery(query);
    const page = q.page();
    const search = q.search();
    const status = q.oneOf('status', PRODUCT_STATUSES);
    const after = q.after('updated_after');
    q.done();
    const where = ['p.company_id = @company'];
    if (search !== undefined) where.push(SEARCH);
    if (status !== undefined) where.push('p.status = @status');
    if (after !== undefined) where.push('p.updated_at > @after');
    const params = {
      company: company.id,
      q: search ?? '',
      status: status ?? '',
      after: after ?? '',
      limit: page.perPage,
      offset: page.offset,
    };
    const clause = where.join(' AND ');
    const total = countProducts(db, company.id, where.length > 1 ? clause : null, params);
    const rows = stmt<[object], ProductRow>(
      db,
      `SELECT p.* FROM products p WHERE ${clause} ORDER BY p.id LIMIT @limit OFFSET @offset`,
    ).all(params);
    return { status: 200, body: listEnvelope(serializeProducts(db, rows), page, total) };
  });

  router.post('/products', ({ db, company, body }) =>
    created(serializeProduct(db, createProduct(db, company.id, bodyObject(body)))),
  );

  router.get('/products/stock/list', ({ db, company, query }) => {
    const q = new ListQuery(query);
    const page = q.page();
    const search = q.search();
    q.done();
    const clause = `p.company_id = @company${search !== undefined ? ` AND ${SEARCH}` : ''}`;
    const params = { company: company.id, q: search ?? '', limit: page.perPage, offset: page.offset };
    const total = countProducts(db, company.id, search !== undefined ? clause : null, params);
    const rows = stmt<[object], ProductRow>(
      db,
      `SELECT p.id, p.sku, p.name, p.type, p.status, p.track_stock, p.stock_quantity, p.updated_at FROM products p
       WHERE ${clause} ORDER BY p.id LIMIT @limit OFFSET @offset`,
    ).all(params);
    const variants = new Map<number, VariantRow[]>();
    if (rows.length > 0)
      for (const v of stmt<[string], VariantRow>(
        db,
        `SELECT id, product_id, sku, name, price, sale_price, stock_quantity FROM variants
         WHERE product_id IN (SELECT value FROM json_each(?)) ORDER BY position, id`,
      ).all(JSON.stringify(rows.map((r) => r.id))))
        variants.set(v.product_id, [...(variants.get(v.product_id) ?? []), v]);
    const data = rows.map((r) => ({
      id: r.id,
      sku: r.sku,
      name: r.name,
      type: r.type,
      status: r.status,
      track_stock: r.track_stock === 1,
      stock_quantity: r.stock_quantity,
      variants: (variants.get(r.id) ?? []).map((v) => ({
        id: v.id,
        sku: v.sku,
        name: v.name,
        stock_quantity: v.stock_quantity,
      })),
      updated_at: r.updated_at,
    }));
    return { status: 200, body: listEnvelope(data, page, total) };
  });

  router.patch('/products/stock/bulk', ({ db, company, body }) =>
    ok(bulkStock(db, company.id, bodyObject(body), bulkMax)),
  );
  router.patch('/products/prices/bulk', ({ db, company, body }) =>
    ok(bulkPrices(db, company.id, bodyObject(body), bulkMax)),
  );

  router.get('/products/:id', ({ db, company, params }) => {
    const row = productById(db, company.id, idParam(params));
    if (!row) throw notFound('Product');
    return ok(serializeProduct(db, row));
  });
  router.patch('/products/:id', ({ db, company, params, body }) =>
    ok(serializeProduct(db, updateProduct(db, company.id, idParam(params), bodyObject(body)))),
  );
  router.patch('/products/:id/price', ({ db, company, params, body }) =>
    ok(serializeProduct(db, updatePrice(db, company.id, idParam(params), bodyObject(body)))),
  );
  router.patch('/products/:id/stock', ({ db, company, params, body }) =>
    ok(serializeProduct(db, updateStock(db, company.id, idParam(params), bodyObject(body)))),
  );
}
