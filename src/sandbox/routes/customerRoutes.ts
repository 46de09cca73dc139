import { pageOf, updateRow } from '../db/statements.js';
import { noUpdatableField, notFound } from '../http/apiError.js';
import { bodyObject, definedOnly, Fields, Issues } from '../http/fields.js';
import { ListQuery, listEnvelope } from '../http/listQuery.js';
import { idParam, ok, type Router } from '../http/router.js';
import { isoSeconds } from '../http/time.js';
import {
  CUSTOMER_COLUMNS,
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
    const { rows, total } = pageOf<CustomerRow>(
      db,
      {
        columns: CUSTOMER_COLUMNS,
        from: 'customers c',
        where: `c.company_id = @company${search !== undefined ? ` AND ${SEARCH}` : ''}`,
        orderBy: 'c.id',
        params: { company: company.id, q: search ?? '' },
      },
      page,
    );
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
    const columns = definedOnly({
      name: f.string('name', { nonEmpty: true, max: 191 }),
      email: f.string('email', { nullable: true, max: 191 }),
      phone: f.string('phone', { nullable: true, max: 64 }),
      company_name: f.string('company_name', { nullable: true, max: 191 }),
      cui: f.string('cui', { nullable: true, max: 64 }),
      reg_com: f.string('reg_com', { nullable: true, max: 64 }),
      notes: f.string('notes', { nullable: true, max: 2000 }),
    });
    if (issues.count === 0 && Object.keys(columns).length === 0) throw noUpdatableField();
    issues.throwIfAny();
    updateRow(db, 'customers', id, columns, isoSeconds());
    return ok(serializeCustomer(customerById(db, company.id, id) as CustomerRow));
  });
}
