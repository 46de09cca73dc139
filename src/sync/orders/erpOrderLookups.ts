import type { OrderCustomerInput } from '../../api/inputs.js';
import type { ApiOrderSummary } from '../../api/schemas.js';
import type { OutgoingOrder } from '../../domain/orders.js';
import type { SyncContext } from '../frame/types.js';

/**
 * The platform order created for an ERP order, found by `search` and then matched exactly on
 * source_order_id (search is a substring match over several fields). Null when none exists.
 * A listed record that fails its schema but carries this source_order_id is fetched by its id:
 * an odd record must never make us create the order a second time.
 */
export async function findOrderBySourceId(
  ctx: SyncContext,
  sourceOrderId: string,
): Promise<ApiOrderSummary | null> {
  const matches: ApiOrderSummary[] = [];
  for (let page = 1; ; page++) {
    const result = await ctx.client.orders.list({ search: sourceOrderId, per_page: 100, page });
    for (const order of result.data) if (order.source_order_id === sourceOrderId) matches.push(order);
    for (const { record } of result.invalid ?? []) {
      const raw = (record ?? {}) as { id?: unknown; source_order_id?: unknown };
      if (raw.source_order_id === sourceOrderId && typeof raw.id === 'number')
        matches.push(await ctx.client.orders.get(raw.id));
    }
    if (result.data.length + (result.invalid?.length ?? 0) === 0 || page >= result.meta.last_page) break;
  }
  if (matches.length > 1) {
    ctx.logger.error(
      { sourceOrderId, orderIds: matches.map((o) => o.id) },
      'several platform orders carry one source_order_id',
    );
  }
  return matches.reduce<ApiOrderSummary | null>(
    (first, o) => (first === null || o.id < first.id ? o : first),
    null,
  );
}

/** customer_id as given; otherwise the customer with that email; otherwise a customer object to create. */
export async function resolveCustomer(
  ctx: SyncContext,
  order: OutgoingOrder,
): Promise<{ customerId?: number; customer?: OrderCustomerInput }> {
  if (order.customerId !== undefined) return { customerId: order.customerId };
  const c = order.customer!;
  if (c.email) {
    // search is a substring match over several fields: every page, until the exact email.
    const email = c.email.toLowerCase();
    for await (const customer of ctx.client.customers.iterate({ search: c.email })) {
      if (customer.email?.toLowerCase() === email) return { customerId: customer.id };
    }
  }
  const customer: OrderCustomerInput = { name: c.name };
  if (c.email) customer.email = c.email;
  if (c.phone) customer.phone = c.phone;
  if (c.companyName) customer.company_name = c.companyName;
  if (c.cui) customer.cui = c.cui;
  if (c.regCom) customer.reg_com = c.regCom;
  return { customer };
}
