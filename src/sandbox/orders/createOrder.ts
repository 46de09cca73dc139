import type { Db } from '../db/openDatabase.js';
import { stmt } from '../db/statements.js';
import type { Company } from '../http/auth.js';
import { Fields, Issues, isObject, MAX_AMOUNT, MAX_ORDER_LINES, type Obj } from '../http/fields.js';
import { isoSeconds } from '../http/time.js';
import { syncVariableStock, touchProducts } from '../products/productRepo.js';
import { lineTotal, ORDER_STATUSES, orderTotals, PAYMENT_STATUSES } from './orderMath.js';
import { orderById, type OrderRow } from './orderRepo.js';

interface Line {
  /** The line's position in the request's `items`. */
  index: number;
  product_id: number;
  variant_id: number | null;
  sku: string;
  name: string;
  quantity: number;
  unit_price: number;
  tax_rate: number;
  track: boolean;
}

interface ProductLookup {
  id: number;
  type: string;
  name: string;
  sku: string;
  price: number;
  vat_rate: number;
  track_stock: number;
}
interface VariantLookup {
  id: number;
  product_id: number;
  sku: string;
  name: string;
  price: number;
}

function readCustomer(db: Db, company: Company, f: Fields, issues: Issues): () => number {
  const customerId = f.integer('customer_id', { min: 1 });
  const hasObject = f.has('customer');
  if (!f.has('customer_id') && !hasObject) issues.add('customer_id', 'customer_id or customer is required');
  if (f.has('customer_id') && hasObject) issues.add('customer', 'send customer_id or customer, not both');
  if (customerId != null) {
    if (
      !stmt<[number, number]>(db, 'SELECT 1 FROM customers WHERE id = ? AND company_id = ?').get(
        customerId,
        company.id,
      )
    )
      issues.add('customer_id', 'does not exist in this company');
    return () => customerId;
  }
  if (!hasObject) return () => 0;
  if (!isObject(f.obj.customer)) {
    issues.add('customer', 'must be an object');
    return () => 0;
  }
  const c = new Fields(f.obj.customer, issues, 'customer');
  const data = {
    name: c.string('name', { required: true, max: 191 }),
    email: c.string('email', { nullable: true, max: 191 }) ?? null,
    phone: c.string('phone', { nullable: true, max: 64 }) ?? null,
    company_name: c.string('company_name', { nullable: true, max: 191 }) ?? null,
    cui: c.string('cui', { nullable: true, max: 64 }) ?? null,
    reg_com: c.string('reg_com', { nullable: true, max: 64 }) ?? null,
  };
  // A customer with the same email (case-insensitively) is reused as it is.
  return () => {
    if (data.email) {
      const existing = stmt<[number, string], { id: number }>(
        db,
        'SELECT id FROM customers WHERE company_id = ? AND email = ? COLLATE NOCASE ORDER BY id LIMIT 1',
      ).get(company.id, data.email);
      if (existing) return existing.id;
    }
    const now = isoSeconds();
    return Number(
      stmt(
        db,
        `INSERT INTO customers (company_id, name, email, phone, company_name, cui, reg_com, created_at, updated_at)
         VALUES (@company_id, @name, @email, @phone, @company_name, @cui, @reg_com, @now, @now)`,
      ).run({ ...data, company_id: company.id, now }).lastInsertRowid,
    );
  };
}

function readLines(db: Db, companyId: number, raw: unknown, issues: Issues): Line[] {
  if (!Array.isArray(raw) || raw.length === 0) {
    issues.add('items', 'at least one line is required');
    return [];
  }
  if (raw.length > MAX_ORDER_LINES) {
    issues.add('items', `must have at most ${MAX_ORDER_LINES} lines, got ${raw.length}`);
    return [];
  }
  const productById = stmt<[number, number], ProductLookup>(
    db,
    'SELECT id, type, name, sku, price, vat_rate, track_stock FROM products WHERE id = ? AND company_id = ?',
  );
  const productBySku = stmt<[number, string], ProductLookup>(
    db,
    'SELECT id, type, name, sku, price, vat_rate, track_stock FROM products WHERE company_id = ? AND sku = ?',
  );
  const variantById = stmt<[number, number], VariantLookup>(
    db,
    'SELECT id, product_id, sku, name, price FROM variants WHERE id = ? AND company_id = ?',
  );
  const variantBySku = stmt<[number, string], VariantLookup>(
    db,
    'SELECT id, product_id, sku, name, price FROM variants WHERE company_id = ? AND sku = ?',
  );
  return raw.flatMap((item, i): Line[] => {
    const p = `items.${i}`;
    if (!isObject(item)) {
      issues.add(p, 'must be an object');
      return [];
    }
    const f = new Fields(item, issues, p);
    const productId = f.integer('product_id', { min: 1 });
    const sku = f.sku('sku', { nonEmpty: true });
    const quantity = f.integer('quantity', { required: true, min: 1 });
    let variantId = f.integer('variant_id', { min: 1 });
    const unitPrice = f.number('unit_price', { min: 0 });
    const taxRate = f.number('tax_rate', { min: 0, max: 100 });
    if (!f.has('product_id') && !f.has('sku')) issues.add(`${p}.product_id`, 'product_id or sku is required');
    let product: ProductLookup | undefined;
    let variant: VariantLookup | undefined;
    if (productId != null) {
      product = productById.get(productId, companyId);
      if (!product) issues.add(`${p}.product_id`, 'does not exist in this company');
    } else if (sku != null) {
      product = productBySku.get(companyId, sku);
      if (!product) {
        variant = variantBySku.get(companyId, sku);
        if (variant) {
          product = productById.get(variant.product_id, companyId);
          if (variantId != null && variantId !== variant.id)
            issues.add(`${p}.variant_id`, 'does not match the variant SKU');
          variantId = variant.id;
        } else issues.add(`${p}.sku`, 'does not exist in this company');
      }
    }
    if (!product || quantity == null) return [];
    if (variantId != null && !variant) {
      variant = variantById.get(variantId, companyId);
      if (!variant || variant.product_id !== product.id) {
        issues.add(`${p}.variant_id`, 'does not belong to the product');
        return [];
      }
    }
    if (product.type === 'variable' && !variant) {
      issues.add(`${p}.variant_id`, 'is required: the product has variants');
      return [];
    }
    return [
      {
        index: i,
        product_id: product.id,
        variant_id: variant?.id ?? null,
        sku: variant?.sku ?? product.sku,
        name: variant ? `${product.name} - ${variant.name}` : product.name,
        quantity,
        unit_price: unitPrice ?? variant?.price ?? product.price,
        tax_rate: taxRate ?? product.vat_rate,
        track: product.track_stock === 1,
      },
    ];
  });
}

/** Takes tracked stock for a line (never below 0) and returns how much was taken, for a later restock. */
function takeStock(db: Db, line: Line): number {
  if (!line.track) return 0;
  const table = line.variant_id !== null ? 'variants' : 'products';
  const id = line.variant_id ?? line.product_id;
  const row = stmt<[number], { stock_quantity: number }>(
    db,
    `SELECT stock_quantity FROM ${table} WHERE id = ?`,
  ).get(id);
  const taken = Math.min(row?.stock_quantity ?? 0, line.quantity);
  if (taken > 0)
    stmt(db, `UPDATE ${table} SET stock_quantity = stock_quantity - ? WHERE id = ?`).run(taken, id);
  return taken;
}

/** POST /orders: validates everything, then creates the order, its lines and history, and takes stock. */
export function createOrder(db: Db, company: Company, body: Obj): OrderRow {
  const issues = new Issues();
  const f = new Fields(body, issues);
  const customerId = readCustomer(db, company, f, issues);
  const lines = readLines(db, company.id, body.items, issues);
  const status = f.oneOf('status', ORDER_STATUSES) ?? 'new';
  const paymentStatus = f.oneOf('payment_status', PAYMENT_STATUSES) ?? 'unpaid';
  const currency = f.string('currency', { nonEmpty: true }) ?? company.currency;
  if (f.has('currency') && !stmt<[string]>(db, 'SELECT 1 FROM currencies WHERE code = ?').get(currency))
    issues.add('currency', 'must be a known 3-letter ISO currency code');
  const shipping = f.number('shipping_total', { min: 0 }) ?? 0;
  const discount = f.number('discount_total', { min: 0 }) ?? 0;
  const source = f.string('source_order_id', { nullable: true, max: 191 }) ?? null;
  const paymentMethod = f.string('payment_method', { nullable: true, max: 191 }) ?? null;
  const shippingMethod = f.string('shipping_method', { nullable: true, max: 191 }) ?? null;
  const notes = f.string('notes', { nullable: true, max: 65_535 }) ?? null;
  const labels = f.stringArray('labels', { maxItem: 60 }) ?? [];
  const totals = orderTotals(lines, shipping, discount);
  if (issues.count === 0 && totals.total < 0) issues.add('discount_total', 'is larger than the order value');
  for (const line of lines)
    if (lineTotal(line) > MAX_AMOUNT)
      issues.add(`items.${line.index}.quantity`, `the line total must be at most ${MAX_AMOUNT}`);
  if (issues.count === 0 && Math.max(totals.subtotal, totals.subtotal + totals.shipping_total) > MAX_AMOUNT)
    issues.add('items', `the order value must be at most ${MAX_AMOUNT}`);
  issues.throwIfAny();

  const now = isoSeconds();
  const counter = stmt<[number], { order_prefix: string; next_order_number: number }>(
    db,
    'UPDATE companies SET next_order_number = next_order_number + 1 WHERE id = ? RETURNING order_prefix, next_order_number',
  ).get(company.id);
  const number = `${counter?.order_prefix ?? 'ORD'}-${100000 + (counter?.next_order_number ?? 1) - 1}`;
  const orderId = Number(
    stmt(
      db,
      `INSERT INTO orders (company_id, number, status, payment_status, currency, source_order_id, customer_id, subtotal,
         shipping_total, discount_total, tax_total, total, payment_method, shipping_method, notes, labels, created_at, updated_at)
       VALUES (@company_id, @number, @status, @payment_status, @currency, @source, @customer_id, @subtotal, @shipping_total,
         @discount_total, @tax_total, @total, @payment_method, @shipping_method, @notes, @labels, @now, @now)`,
    ).run({
      company_id: company.id,
      number,
      status,
      payment_status: paymentStatus,
      currency,
      source,
      customer_id: customerId(),
      ...totals,
      payment_method: paymentMethod,
      shipping_method: shippingMethod,
      notes,
      labels: JSON.stringify(labels),
      now,
    }).lastInsertRowid,
  );
  const insertItem = stmt(
    db,
    `INSERT INTO order_items (order_id, product_id, variant_id, sku, name, quantity, unit_price, tax_rate, total, stock_taken)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  // An order created as cancelled or returned never held stock.
  const holdsStock = status !== 'cancelled' && status !== 'returned';
  const touched = new Set<number>();
  for (const line of lines) {
    const taken = holdsStock ? takeStock(db, line) : 0;
    if (taken > 0) {
      touched.add(line.product_id);
      if (line.variant_id !== null) syncVariableStock(db, line.product_id);
    }
    insertItem.run(
      orderId,
      line.product_id,
      line.variant_id,
      line.sku,
      line.name,
      line.quantity,
      line.unit_price,
      line.tax_rate,
      lineTotal(line),
      taken,
    );
  }
  touchProducts(db, touched, now);
  stmt(
    db,
    'INSERT INTO order_history (order_id, from_status, to_status, note, at) VALUES (?, NULL, ?, NULL, ?)',
  ).run(orderId, status, now);
  return orderById(db, company.id, orderId) as OrderRow;
}
