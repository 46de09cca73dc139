import { stmt } from '../db/statements.js';
import { noUpdatableField, notFound } from '../http/apiError.js';
import { bodyObject, Fields, Issues } from '../http/fields.js';
import { ListQuery, listEnvelope } from '../http/listQuery.js';
import { idParam, ok, type Router } from '../http/router.js';
import { isoSeconds } from '../http/time.js';
import {
  CUSTOMER_SELECT,
  customerById,
  serializeCustomer,
  type CustomerRow,
} from '../customers/customerRepo.js';

const SEARCH =
  '(icontains(c.name, @q) OR icontains(c.email, @q) OR icontains(c.phone, @q) OR icontains(c.company_name, @q) OR icontains(c.cui, @q))';

export function registerCustomerRoutes(router: Router): void {
  router.get('/customers', ({ db, company, query }) => {
    const q = new ListQuery(query);
    const page = q.page();
    const search = q.search();
    q.done();
    const clause = `c.company_id = @company${search !== undefined ? ` AND ${SEARCH}` : ''}`;
    const params = { company: company.id, q: search ?? '', limit: page.perPage, offset: page.offset };
    const total =
      stmt<[object], { n: number }>(db, `SELECT COUNT(*) AS n FROM customers c WHERE ${clause}`).get(params)
        ?.n ?? 0;
    const rows = stmt<[object], CustomerRow>(
      db,
      `${CUSTOMER_SELECT} WHERE ${clause} ORDER BY c.id LIMIT @limit OFFSET @offset`,
    ).all(params);
    return { status: 200, body: listEnvelope(rows.map(serializeCustomer), page, total) };
  });

  router.get('/customers/:id', ({ db, company, params }) => {
    const row = customerById(db, company.id, idParam(params));
    if (!row) throw notFound('Customer');
    return ok(serializeCustomer(row));
  });

  router.patch('/customers/:id', ({ db, company, params, body }) => {
    const id = idParam(params);
    if (!customerById(db, company.id, id)) throw notFound('Customer');
    const issues = new Issues();
    const f = new Fields(bodyObject(body), issues);
    const columns: Record<string, unknown> = {};
    const put = (k: string, v: unknown): void => {
      if (v !== undefined) columns[k] = v;
    };
    put('name', f.string('name', { nonEmpty: true, max: 191 }));
    for (const k of ['email', 'company_name']) put(k, f.string(k, { nullable: true, max: 191 }));
    for (const k of ['phone', 'cui', 'reg_com']) put(k, f.string(k, { nullable: true, max: 64 }));
    put('notes', f.string('notes', { nullable: true, max: 2000 }));
    if (issues.count === 0 && Object.keys(columns).length === 0) throw noUpdatableField();
    issues.throwIfAny();
    const names = Object.keys(columns);
    stmt(
      db,
      `UPDATE customers SET ${names.map((n) => `${n} = @${n}`).join(', ')}, updated_at = @__at WHERE id = @__id`,
    ).run({
      ...columns,
      __at: isoSeconds(),
      __id: id,
    });
    return ok(serializeCustomer(customerById(db, company.id, id) as CustomerRow));
  });
}
