import type { Db } from '../db/openDatabase.js';
import { isoSeconds } from '../http/time.js';
import type { SeededProduct } from './catalog.js';

type Kind = 'marketplace' | 'courier' | 'billing_software' | 'website' | 'fulfillment';
type Connection = [Kind, string, string, string, Record<string, unknown>, Record<string, unknown> | null];

/** Connection lists; `credentials` are stored to prove that no response ever shows them. */
const PRIMARY: Connection[] = [
  [
    'marketplace',
    'emag',
    'eMAG Marketplace',
    'connected',
    { country: 'RO', last_sync_at: '2026-11-01T06:00:00Z' },
    { username: 'demo@emag', password: 'emag-secret-password' },
  ],
  [
    'marketplace',
    'trendyol',
    'Trendyol',
    'connected',
    { country: 'RO', last_sync_at: '2026-11-01T06:05:00Z' },
    { api_key: 'trendyol-api-key', api_secret: 'trendyol-secret' },
  ],
  ['marketplace', 'altex', 'Altex Marketplace', 'disconnected', { country: 'RO', last_sync_at: null }, null],
  [
    'courier',
    'fan',
    'FAN Courier',
    'connected',
    { default: true, services: ['standard', 'express'] },
    { client_id: '7001', username: 'fan-user', password: 'fan-password' },
  ],
  [
    'courier',
    'sameday',
    'Sameday',
    'connected',
    { default: false, services: ['24h', 'easybox'] },
    { username: 'sameday-user', password: 'sameday-password' },
  ],
  [
    'courier',
    'cargus',
    'Cargus',
    'connected',
    { default: false, services: ['standard'] },
    { subscription_key: 'cargus-key', password: 'cargus-password' },
  ],
  ['courier', 'dpd', 'DPD', 'disconnected', { default: false, services: [] }, null],
  [
    'billing_software',
    'smartbill',
    'SmartBill',
    'connected',
    { invoice_series: 'DRF', auto_invoice: false },
    { email: 'billing@demo-retail.example', token: 'smartbill-token' },
  ],
  ['billing_software', 'oblio', 'Oblio', 'disconnected', { invoice_series: null, auto_invoice: false }, null],
  [
    'website',
    'woocommerce',
    'demo-retail.example',
    'connected',
    { url: 'https://demo-retail.example', platform: 'woocommerce' },
    { consumer_key: 'ck_demo', consumer_secret: 'cs_demo' },
  ],
  [
    'website',
    'shopify',
    'outlet.demo-retail.example',
    'connected',
    { url: 'https://outlet.demo-retail.example', platform: 'shopify' },
    { access_token: 'shpat_demo' },
  ],
  [
    'fulfillment',
    'own',
    'Depozit București',
    'active',
    { type: 'warehouse', city: 'București', country: 'RO' },
    null,
  ],
  [
    'fulfillment',
    'emag_fbe',
    'eMAG Fulfillment',
    'active',
    { type: 'fulfillment_center', city: 'Chiajna', country: 'RO' },
    { token: 'fbe-token' },
  ],
  [
    'fulfillment',
    'own',
    'Depozit Cluj',
    'inactive',
    { type: 'warehouse', city: 'Cluj-Napoca', country: 'RO' },
    null,
  ],
];

const SECONDARY: Connection[] = [
  [
    'marketplace',
    'emag',
    'eMAG Marketplace',
    'connected',
    { country: 'RO', last_sync_at: '2026-10-30T08:00:00Z' },
    { username: 'second@emag', password: 'second-emag-password' },
  ],
  ['courier', 'fan', 'FAN Courier', 'disconnected', { default: true, services: [] }, null],
  [
    'billing_software',
    'oblio',
    'Oblio',
    'connected',
    { invoice_series: 'SSF', auto_invoice: true },
    { email: 'a@second-shop.example', token: 'oblio-token' },
  ],
  [
    'website',
    'custom',
    'second-shop.example',
    'connected',
    { url: 'https://second-shop.example', platform: 'custom' },
    null,
  ],
  [
    'fulfillment',
    'own',
    'Sera Florești',
    'active',
    { type: 'warehouse', city: 'Florești', country: 'RO' },
    null,
  ],
];

export function seedConnections(
  db: Db,
  companyId: number,
  which: 'primary' | 'secondary',
  createdFrom: string,
): void {
  const insert = db.prepare(
    'INSERT INTO connections (company_id, kind, code, name, status, details, credentials, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const start = Date.parse(createdFrom);
  (which === 'primary' ? PRIMARY : SECONDARY).forEach(([kind, code, name, status, details, credentials], i) =>
    insert.run(
      companyId,
      kind,
      code,
      name,
      status,
      JSON.stringify(details),
      credentials ? JSON.stringify(credentials) : null,
      isoSeconds(start + i * 86_400_000),
    ),
  );
}

/** Marketplace offers for the first active products. */
export function seedOffers(
  db: Db,
  companyId: number,
  products: SeededProduct[],
  count: number,
  marketplaces: string[],
): void {
  const insert = db.prepare(
    `INSERT INTO offers (company_id, product_id, marketplace, external_id, title, price, stock_quantity, status, url, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const statuses = ['active', 'active', 'active', 'inactive', 'pending', 'error'];
  products
    .filter((p) => p.status === 'active')
    .slice(0, count)
    .forEach((p, i) => {
      const marketplace = marketplaces[i % marketplaces.length] ?? 'emag';
      const external = `${marketplace.toUpperCase()}-${900000 + p.id}`;
      const at = isoSeconds(Date.parse('2026-06-01T00:00:00Z') + i * 3_600_000);
      insert.run(
        companyId,
        p.id,
        marketplace,
        external,
        p.name,
        p.price,
        5 + (i % 20),
        statuses[i % statuses.length],
        `https://${marketplace}.example/p/${external}`,
        at,
        at,
      );
    });
}
