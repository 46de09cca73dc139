import type { Db } from '../db/openDatabase.js';
import { DEMO_KEYS } from './demoKeys.js';

export interface CompanyIds {
  primary: number;
  secondary: number;
  noUser: number;
}

const CREATED = '2024-03-01T09:00:00Z';

/** The three demo companies and their four keys (the revoked key belongs to `primary`). */
export function seedCompanies(db: Db): CompanyIds {
  const insert = db.prepare(
    `INSERT INTO companies (label, name, cui, reg_com, street, city, county, country, postal_code, email, phone,
       plan, subscription_status, currency, language, has_user, order_prefix, invoice_series, created_at)
     VALUES (@label, @name, @cui, @reg_com, @street, @city, @county, 'RO', @postal_code, @email, @phone,
       @plan, @subscription_status, 'RON', 'ro', @has_user, @order_prefix, @invoice_series, @created_at)`,
  );
  const id = (row: Record<string, unknown>): number =>
    Number(insert.run({ created_at: CREATED, has_user: 1, ...row }).lastInsertRowid);
  const primary = id({
    label: 'primary',
    name: 'Demo Retail SRL',
    cui: 'RO12345678',
    reg_com: 'J40/1234/2020',
    street: 'Strada Exemplu 10',
    city: 'București',
    county: 'București',
    postal_code: '010101',
    email: 'office@demo-retail.example',
    phone: '+40210000001',
    plan: 'business',
    subscription_status: 'active',
    order_prefix: 'DR',
    invoice_series: 'DRF',
  });
  const secondary = id({
    label: 'secondary',
    name: 'Second Shop SRL',
    cui: 'RO87654321',
    reg_com: 'J12/987/2021',
    street: 'Bulevardul Eroilor 5',
    city: 'Cluj-Napoca',
    county: 'Cluj',
    postal_code: '400129',
    email: 'contact@second-shop.example',
    phone: '+40264000002',
    plan: 'starter',
    subscription_status: 'trialing',
    order_prefix: 'SS',
    invoice_series: 'SSF',
  });
  const noUser = id({
    label: 'no_user',
    name: 'Orphan Trading SRL',
    cui: 'RO11223344',
    reg_com: 'J22/55/2022',
    street: 'Strada Lapusneanu 1',
    city: 'Iași',
    county: 'Iași',
    postal_code: '700057',
    email: null,
    phone: null,
    plan: 'starter',
    subscription_status: 'past_due',
    order_prefix: 'OT',
    invoice_series: 'OTF',
    has_user: 0,
  });
  const key = db.prepare('INSERT INTO api_keys (company_id, key, label, revoked) VALUES (?, ?, ?, ?)');
  key.run(primary, DEMO_KEYS.primary, 'primary', 0);
  key.run(secondary, DEMO_KEYS.secondary, 'secondary', 0);
  key.run(primary, DEMO_KEYS.revoked, 'revoked', 1);
  key.run(noUser, DEMO_KEYS.no_user, 'no_user', 0);
  return { primary, secondary, noUser };
}
