import { pageOf } from '../db/statements.js';
import { notFound } from '../http/apiError.js';
import { bodyObject } from '../http/fields.js';
import { ListQuery, listEnvelope } from '../http/listQuery.js';
import { created, idParam, ok, type Router } from '../http/router.js';
import { createOrder } from '../orders/createOrder.js';
import { issueAwb, issueInvoice } from '../orders/documents.js';
import { ORDER_STATUSES } from '../orders/orderMath.js';
import {
  orderById,
  serializeAwb,
  serializeInvoice,
  serializeOrder,
  serializeOrders,
  type OrderRow,
} from '../orders/orderRepo.js';
import { updateOrder } from '../orders/updateOrder.js';

const SEARCH =
  '(icontains(o.number, @q) OR icontains(o.source_order_id, @q) OR EXISTS (SELECT 1 FROM customers c' +
  ' WHERE c.id = o.customer_id AND (icontains(c.name, @q) OR icontains(c.email, @q))))';

export function registerOrderRoutes(router: Router, ordersOrder: 'asc' | 'desc'): void {
  router.get('/orders', ({ db, company, query }) => {
    const q = new ListQuery(query);
    const page = q.page();
    const search = q.search();
    const status = q.oneOf('status', ORDER_STATUSES);
    q.done();
    const where = ['o.company_id = @company'];
    if (search !== undefined) where.push(SEARCH);
    if (status !== undefined) where.push('o.status = @status');
    const { rows, total } = pageOf<OrderRow>(
      db,
      {
        columns: 'o.*',
        from: 'orders o',
        where: where.join(' AND '),
        orderBy: `o.id ${ordersOrder === 'asc' ? 'ASC' : 'DESC'}`,
        params: { company: company.id, q: search ?? '', status: status ?? '' },
      },
      page,
    );
    return { status: 200, body: listEnvelope(serializeOrders(db, rows), page, total) };
  });

  router.post('/orders', ({ db, company, body }) =>
    created(serializeOrder(db, createOrder(db, company, bodyObject(body)))),
  );

  router.get('/orders/:id', ({ db, company, params }) => {
    const row = orderById(db, company.id, idParam(params));
    if (!row) throw notFound('Order');
    return ok(serializeOrder(db, row));
  });

  router.patch('/orders/:id', ({ db, company, params, body }) =>
    ok(serializeOrder(db, updateOrder(db, company.id, idParam(params), bodyObject(body)))),
  );

  router.post('/orders/:id/awb', ({ db, company, params, body }) => {
    const { awb, created: isNew } = issueAwb(
      db,
      company.id,
      idParam(params),
      bodyObject(body, { optional: true }),
    );
    return (isNew ? created : ok)(serializeAwb(awb));
  });

  router.post('/orders/:id/invoice', ({ db, company, params }) => {
    const { invoice, created: isNew } = issueInvoice(db, company.id, idParam(params));
    return (isNew ? created : ok)(serializeInvoice(invoice));
  });
}
