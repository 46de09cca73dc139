import type { Db } from '../db/openDatabase.js';
import { stmt } from '../db/statements.js';

export interface CustomerRow {
  id: number;
  name: string;
  email: string | null;
  phone: string | null;
  company_name: string | null;
  cui: string | null;
  reg_com: string | null;
  notes: string | null;
  street: string | null;
  city: string | null;
  county: string | null;
  country: string | null;
  postal_code: string | null;
  orders_count: number;
  created_at: string;
  updated_at: string;
}

export const CUSTOMER_COLUMNS =
  'c.*, (SELECT COUNT(*) FROM orders o WHERE o.customer_id = c.id) AS orders_count';
const CUSTOMER_SELECT = `SELECT ${CUSTOMER_COLUMNS} FROM customers c`;

export function customerById(db: Db, companyId: number, id: number): CustomerRow | undefined {
  return stmt<[number, number], CustomerRow>(
    db,
    `${CUSTOMER_SELECT} WHERE c.id = ? AND c.company_id = ?`,
  ).get(id, companyId);
}

export function customersByIds(db: Db, ids: number[]): Map<number, CustomerRow> {
  const rows = stmt<[string], CustomerRow>(
    db,
    `${CUSTOMER_SELECT} WHERE c.id IN (SELECT value FROM json_each(?))`,
  ).all(JSON.stringify(ids));
  return new Map(rows.map((r) => [r.id, r]));
}

type AddressColumns = Record<'street' | 'city' | 'county' | 'country' | 'postal_code', unknown>;

/** The `address` object of a customer or an account, from the row's address columns. */
export const addressOf = (r: AddressColumns): AddressColumns => ({
  street: r.street,
  city: r.city,
  county: r.county,
  country: r.country,
  postal_code: r.postal_code,
});

export function serializeCustomer(c: CustomerRow): Record<string, unknown> {
  return {
    id: c.id,
    name: c.name,
    email: c.email,
    phone: c.phone,
    company_name: c.company_name,
    cui: c.cui,
    reg_com: c.reg_com,
    notes: c.notes,
    address: addressOf(c),
    orders_count: c.orders_count,
    created_at: c.created_at,
    updated_at: c.updated_at,
  };
}
