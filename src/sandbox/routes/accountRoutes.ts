import { addressOf } from '../customers/customerRepo.js';
import { stmt } from '../db/statements.js';
import { ok, type Router } from '../http/router.js';
import { ORDER_STATUSES, round2 } from '../orders/orderMath.js';
import { PRODUCT_STATUSES } from '../products/productInput.js';

export function registerAccountRoutes(router: Router): void {
  router.get('/account', ({ db, company }) => {
    const c =
      stmt<[number], Record<string, string | number | null>>(db, 'SELECT * FROM companies WHERE id = ?').get(
        company.id,
      ) ?? {};
    return ok({
      id: c.id,
      name: c.name,
      cui: c.cui,
      reg_com: c.reg_com,
      address: addressOf(c as Parameters<typeof addressOf>[0]),
      email: c.email,
      phone: c.phone,
      plan: c.plan,
      subscription_status: c.subscription_status,
      currency: c.currency,
      language: c.language,
      created_at: c.created_at,
    });
  });

  router.get('/stats', ({ db, company }) => {
    const productRows = stmt<[number], { status: string; n: number }>(
      db,
      'SELECT status, COUNT(*) AS n FROM products WHERE company_id = ? GROUP BY status',
    ).all(company.id);
    const orderRows = stmt<[number], { status: string; n: number; value: number }>(
      db,
      'SELECT status, COUNT(*) AS n, SUM(total) AS value FROM orders WHERE company_id = ? GROUP BY status',
    ).all(company.id);
    const customers = stmt<[number], { n: number }>(
      db,
      'SELECT COUNT(*) AS n FROM customers WHERE company_id = ?',
    ).get(company.id);
    const productsByStatus = Object.fromEntries(
      PRODUCT_STATUSES.map((s) => [s, productRows.find((r) => r.status === s)?.n ?? 0]),
    );
    const ordersByStatus = Object.fromEntries(
      ORDER_STATUSES.map((s) => [s, orderRows.find((r) => r.status === s)?.n ?? 0]),
    );
    return ok({
      products_count: productRows.reduce((a, r) => a + r.n, 0),
      products_by_status: productsByStatus,
      orders_count: orderRows.reduce((a, r) => a + r.n, 0),
      orders_by_status: ordersByStatus,
      customers_count: customers?.n ?? 0,
      // Cancelled orders carry no value.
      orders_total_value: round2(
        orderRows.filter((r) => r.status !== 'cancelled').reduce((a, r) => a + r.value, 0),
      ),
      currency: company.currency,
    });
  });
}
