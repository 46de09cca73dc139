import type { Db } from '../db/openDatabase.js';
import { pageOf, stmt } from '../db/statements.js';
import { notFound } from '../http/apiError.js';
import { ListQuery, listEnvelope } from '../http/listQuery.js';
import { idParam, ok, type Router } from '../http/router.js';

interface CategoryRow {
  id: number;
  parent_id: number | null;
  name: string;
  slug: string;
  position: number;
  products_count: number;
}
interface CategoryNode extends CategoryRow {
  children: CategoryNode[];
}

function categoryTree(db: Db, companyId: number): { roots: CategoryNode[]; byId: Map<number, CategoryNode> } {
  const rows = stmt<[number], CategoryRow>(
    db,
    `SELECT c.id, c.parent_id, c.name, c.slug, c.position,
       (SELECT COUNT(*) FROM products p WHERE p.category_id = c.id) AS products_count
     FROM categories c WHERE c.company_id = ? ORDER BY c.id`,
  ).all(companyId);
  const byId = new Map<number, CategoryNode>(rows.map((r) => [r.id, { ...r, children: [] }]));
  const roots: CategoryNode[] = [];
  for (const node of byId.values()) {
    const parent = node.parent_id !== null ? byId.get(node.parent_id) : undefined;
    if (parent) parent.children.push(node);
    else roots.push(node);
  }
  return { roots, byId };
}

interface ReturnRow {
  id: number;
  order_id: number;
  customer_id: number;
  status: string;
  reason: string | null;
  refund_amount: number;
  created_at: string;
  updated_at: string;
  order_number: string;
}

function serializeReturns(db: Db, rows: ReturnRow[]): Record<string, unknown>[] {
  const lines = stmt<
    [string],
    {
      id: number;
      return_id: number;
      product_id: number;
      variant_id: number | null;
      sku: string;
      name: string;
      quantity: number;
      unit_price: number;
      reason: string | null;
    }
  >(db, 'SELECT * FROM return_lines WHERE return_id IN (SELECT value FROM json_each(?)) ORDER BY id').all(
    JSON.stringify(rows.map((r) => r.id)),
  );
  return rows.map((r) => ({
    ...r,
    lines: lines
      .filter((l) => l.return_id === r.id)
      .map((l) => ({
        id: l.id,
        product_id: l.product_id,
        variant_id: l.variant_id,
        sku: l.sku,
        name: l.name,
        quantity: l.quantity,
        unit_price: l.unit_price,
        reason: l.reason,
      })),
  }));
}

const RETURNS = {
  columns:
    'r.id, r.order_id, o.number AS order_number, r.customer_id, r.status, r.reason, r.refund_amount, r.created_at, r.updated_at',
  from: 'returns r JOIN orders o ON o.id = r.order_id',
};
const OFFERS = {
  columns:
    'f.id, f.product_id, p.sku, f.marketplace, f.external_id, f.title, f.price, f.stock_quantity, f.status, f.url, f.created_at, f.updated_at',
  from: 'offers f JOIN products p ON p.id = f.product_id',
};
const RETURN_SELECT = `SELECT ${RETURNS.columns} FROM ${RETURNS.from}`;
const OFFER_SELECT = `SELECT ${OFFERS.columns} FROM ${OFFERS.from}`;

export function registerCatalogReadRoutes(router: Router): void {
  router.get('/categories', ({ db, company, query }) => {
    const q = new ListQuery(query);
    const page = q.page();
    q.done();
    const { roots } = categoryTree(db, company.id);
    return {
      status: 200,
      body: listEnvelope(roots.slice(page.offset, page.offset + page.perPage), page, roots.length),
    };
  });
  router.get('/categories/:id', ({ db, company, params }) => {
    const node = categoryTree(db, company.id).byId.get(idParam(params));
    if (!node) throw notFound('Category');
    return ok(node);
  });

  router.get('/returns', ({ db, company, query }) => {
    const q = new ListQuery(query);
    const page = q.page();
    q.done();
    const { rows, total } = pageOf<ReturnRow>(
      db,
      { ...RETURNS, where: 'r.company_id = @company', orderBy: 'r.id', params: { company: company.id } },
      page,
    );
    return { status: 200, body: listEnvelope(serializeReturns(db, rows), page, total) };
  });
  router.get('/returns/:id', ({ db, company, params }) => {
    const row = stmt<[number, number], ReturnRow>(
      db,
      `${RETURN_SELECT} WHERE r.id = ? AND r.company_id = ?`,
    ).get(idParam(params), company.id);
    if (!row) throw notFound('Return');
    return ok(serializeReturns(db, [row])[0]);
  });

  router.get('/offers', ({ db, company, query }) => {
    const q = new ListQuery(query);
    const page = q.page();
    q.done();
    const { rows, total } = pageOf(
      db,
      { ...OFFERS, where: 'f.company_id = @company', orderBy: 'f.id', params: { company: company.id } },
      page,
    );
    return { status: 200, body: listEnvelope(rows, page, total) };
  });
  router.get('/offers/:id', ({ db, company, params }) => {
    const row = stmt<[number, number]>(db, `${OFFER_SELECT} WHERE f.id = ? AND f.company_id = ?`).get(
      idParam(params),
      company.id,
    );
    if (!row) throw notFound('Offer');
    return ok(row);
  });
}
