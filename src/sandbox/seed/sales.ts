import type { Db } from '../db/openDatabase.js';
import { isoSeconds } from '../http/time.js';
import { ORDER_STATUSES, PAYMENT_STATUSES, lineTotal, orderTotals, statusPath } from '../orders/orderMath.js';
import type { SeededProduct } from './catalog.js';
import type { SeedProfile } from './profiles.js';

const HOUR = 3_600_000;
const CITIES = ['București', 'Cluj-Napoca', 'Iași', 'Timișoara', 'Constanța', 'Brașov', 'Oradea', 'Sibiu'];

interface Prefix {
  order_prefix: string;
  invoice_series: string;
}

/** Customers, orders (every status and payment status, with history, AWBs and invoices) and returns. */
export function seedSales(
  db: Db,
  companyId: number,
  profile: SeedProfile,
  products: SeededProduct[],
  rnd: () => number,
): void {
  const pick = <T>(list: T[]): T => list[Math.floor(rnd() * list.length)] as T;
  const start = Date.parse(profile.createdFrom);
  const insertCustomer = db.prepare(
    `INSERT INTO customers (company_id, name, email, phone, company_name, cui, reg_com, notes, street, city,
       county, country, postal_code, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'RO', ?, ?, ?)`,
  );
  const customers: { id: number; name: string }[] = [];
  for (let i = 1; i <= profile.customers; i++) {
    const first = profile.firstNames[i % profile.firstNames.length] ?? 'Client';
    const last =
      profile.lastNames[Math.floor(i / profile.firstNames.length) % profile.lastNames.length] ?? 'Demo';
    const name = `${first} ${last}`;
    const isCompany = i % 5 === 0;
    const city = pick(CITIES);
    const at = isoSeconds(start + i * 5 * HOUR);
    const email = `${first}.${last}${i}`
      .normalize('NFD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase();
    const id = Number(
      insertCustomer.run(
        companyId,
        name,
        `${email}@${profile.emailDomain}`,
        `07${String(20000000 + i * 7919).slice(0, 8)}`,
        isCompany ? `${last} Distribution SRL` : null,
        isCompany ? `RO${30000000 + i}` : null,
        isCompany ? `J40/${100 + i}/2019` : null,
        i % 7 === 0 ? 'Client fidel.' : null,
        `Strada ${pick(profile.lastNames)} ${1 + (i % 90)}`,
        city,
        city,
        String(100000 + i * 37),
        at,
        at,
      ).lastInsertRowid,
    );
    customers.push({ id, name });
  }

  const company = db
    .prepare<[number], Prefix>('SELECT order_prefix, invoice_series FROM companies WHERE id = ?')
    .get(companyId);
  if (!company) throw new Error('seed: company missing');
  const insertOrder = db.prepare(
    `INSERT INTO orders (company_id, number, status, payment_status, currency, source_order_id, customer_id,
       subtotal, shipping_total, discount_total, tax_total, total, payment_method, shipping_method, notes, labels,
       created_at, updated_at)
     VALUES (?, ?, ?, ?, 'RON', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertItem = db.prepare(
    `INSERT INTO order_items (order_id, product_id, variant_id, sku, name, quantity, unit_price, tax_rate, total)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertHistory = db.prepare(
    'INSERT INTO order_history (order_id, from_status, to_status, note, at) VALUES (?, ?, ?, ?, ?)',
  );
  const insertAwb = db.prepare(
    'INSERT INTO awbs (order_id, number, courier, weight, parcels, cod_amount, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  const insertInvoice = db.prepare(
    'INSERT INTO invoices (order_id, series, number, total, issued_at) VALUES (?, ?, ?, ?, ?)',
  );
  const sellable = products.filter((p) => p.status === 'active');
  const orderStart = start + 40 * 24 * HOUR;
  let invoiceNumber = 0;
  const returnable: {
    orderId: number;
    customerId: number;
    at: number;
    lines: {
      product_id: number;
      variant_id: number | null;
      sku: string;
      name: string;
      quantity: number;
      unit_price: number;
    }[];
  }[] = [];
  for (let i = 1; i <= profile.orders; i++) {
    const status = ORDER_STATUSES[i % ORDER_STATUSES.length] ?? 'new';
    const payment =
      status === 'cancelled' || status === 'returned'
        ? i % 4 === 0
          ? 'refunded'
          : (PAYMENT_STATUSES[i % 3] ?? 'unpaid')
        : (PAYMENT_STATUSES[i % 3] ?? 'unpaid');
    const customer = pick(customers);
    const lines = Array.from({ length: 1 + Math.floor(rnd() * 3) }, () => {
      const p = pick(sellable);
      const v = p.variants.length > 0 ? pick(p.variants) : null;
      const quantity = 1 + Math.floor(rnd() * 3);
      const unit = v ? v.price : p.price;
      return {
        product_id: p.id,
        variant_id: v?.id ?? null,
        sku: v?.sku ?? p.sku,
        name: v ? `${p.name} - ${v.name}` : p.name,
        quantity,
        unit_price: unit,
        tax_rate: p.vat_rate,
      };
    });
    const shipping = i % 4 === 0 ? 0 : 19.99;
    const discount = i % 9 === 0 ? 10 : 0;
    const totals = orderTotals(lines, shipping, discount);
    const created = orderStart + i * 31 * HOUR;
    const path = statusPath(status);
    const updated = created + (path.length - 1) * 6 * HOUR;
    const orderId = Number(
      insertOrder.run(
        companyId,
        `${company.order_prefix}-${String(100000 + i)}`,
        status,
        payment,
        i % 6 === 1 ? `EXT-${profile.skuPrefix}-${5000 + i}` : null,
        customer.id,
        totals.subtotal,
        totals.shipping_total,
        totals.discount_total,
        totals.tax_total,
        totals.total,
        pick(['cod', 'card', 'bank_transfer']),
        pick(['courier', 'pickup', 'easybox']),
        i % 8 === 0 ? 'Livrare după ora 17.' : null,
        JSON.stringify(i % 10 === 0 ? ['urgent'] : []),
        isoSeconds(created),
        isoSeconds(updated),
      ).lastInsertRowid,
    );
    for (const l of lines)
      insertItem.run(
        orderId,
        l.product_id,
        l.variant_id,
        l.sku,
        l.name,
        l.quantity,
        l.unit_price,
        l.tax_rate,
        lineTotal(l),
      );
    path.forEach((to, k) =>
      insertHistory.run(orderId, k === 0 ? null : path[k - 1], to, null, isoSeconds(created + k * 6 * HOUR)),
    );
    const shippedLike = status === 'shipped' || status === 'returned';
    if (shippedLike || (status === 'processing' && i % 2 === 0)) {
      const connected = profile.connectedCouriers.length > 0;
      const courier = connected ? pick(profile.connectedCouriers) : 'fan';
      const number = connected
        ? `${courier.toUpperCase()}${7000000000 + orderId}`
        : `TEST${String(orderId).padStart(10, '0')}`;
      insertAwb.run(
        orderId,
        number,
        courier,
        1 + (i % 5),
        1,
        payment === 'paid' ? 0 : totals.total,
        isoSeconds(created + 12 * HOUR),
      );
    }
    if (shippedLike || (status === 'processing' && payment === 'paid')) {
      invoiceNumber += 1;
      insertInvoice.run(
        orderId,
        company.invoice_series,
        invoiceNumber,
        totals.total,
        isoSeconds(created + 13 * HOUR),
      );
    }
    if (shippedLike) returnable.push({ orderId, customerId: customer.id, at: updated, lines });
  }
  db.prepare('UPDATE companies SET next_order_number = ?, next_invoice_number = ? WHERE id = ?').run(
    profile.orders + 1,
    invoiceNumber + 1,
    companyId,
  );

  const insertReturn = db.prepare(
    `INSERT INTO returns (company_id, order_id, customer_id, status, reason, refund_amount, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertReturnLine = db.prepare(
    `INSERT INTO return_lines (return_id, product_id, variant_id, sku, name, quantity, unit_price, reason)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const reasons = ['Produs defect', 'Mărime greșită', 'Nu corespunde descrierii', 'Răzgândire'];
  const returnStatuses = ['pending', 'approved', 'received', 'refunded', 'rejected'];
  returnable.slice(0, profile.returns).forEach((r, k) => {
    const lines = r.lines.slice(0, 1 + (k % 2));
    const refund = lines.reduce((s, l) => s + l.unit_price * l.quantity, 0);
    const reason = reasons[k % reasons.length] ?? null;
    const at = isoSeconds(r.at + 24 * HOUR);
    const returnId = Number(
      insertReturn.run(
        companyId,
        r.orderId,
        r.customerId,
        returnStatuses[k % returnStatuses.length],
        reason,
        Math.round(refund * 100) / 100,
        at,
        at,
      ).lastInsertRowid,
    );
    for (const l of lines)
      insertReturnLine.run(
        returnId,
        l.product_id,
        l.variant_id,
        l.sku,
        l.name,
        l.quantity,
        l.unit_price,
        reason,
      );
  });
}
