import type { Db } from '../db/openDatabase.js';
import { seededRandom } from '../faults/random.js';
import { isoSeconds } from '../http/time.js';
import { forgetProductCount } from '../products/productRepo.js';
import { seedCatalog } from './catalog.js';
import { seedCompanies, type CompanyIds } from './companies.js';
import { seedConnections, seedOffers } from './connections.js';
import { PRIMARY_PROFILE, SECONDARY_PROFILE } from './profiles.js';
import { seedReference } from './reference.js';
import { seedSales } from './sales.js';

export type SeedKind = 'demo' | 'empty';

/**
 * Seeds a fresh database: always the companies, keys and reference lists; with 'demo' also the
 * deterministic catalog, customers, orders, returns, offers and connections. A database that
 * already holds companies (a reused --db file) is left as it is.
 */
export function seedDatabase(db: Db, kind: SeedKind): CompanyIds {
  const existing = db.prepare<[], { id: number; label: string }>('SELECT id, label FROM companies').all();
  if (existing.length > 0) {
    const id = (label: string): number => existing.find((c) => c.label === label)?.id ?? 0;
    return { primary: id('primary'), secondary: id('secondary'), noUser: id('no_user') };
  }
  return db.transaction(() => {
    seedReference(db);
    const ids = seedCompanies(db);
    if (kind === 'demo') {
      const rnd = seededRandom(20261121);
      const primary = seedCatalog(db, ids.primary, PRIMARY_PROFILE, rnd);
      seedSales(db, ids.primary, PRIMARY_PROFILE, primary, rnd);
      seedConnections(db, ids.primary, 'primary', PRIMARY_PROFILE.createdFrom);
      seedOffers(db, ids.primary, primary, PRIMARY_PROFILE.offers, ['emag', 'trendyol']);
      const secondary = seedCatalog(db, ids.secondary, SECONDARY_PROFILE, rnd);
      seedSales(db, ids.secondary, SECONDARY_PROFILE, secondary, rnd);
      seedConnections(db, ids.secondary, 'secondary', SECONDARY_PROFILE.createdFrom);
      seedOffers(db, ids.secondary, secondary, SECONDARY_PROFILE.offers, ['emag']);
    }
    return ids;
  })();
}

/** Ensures N simple, active, stock-tracked products BULK-000001.. (price 10, stock 0), in one transaction. */
export function addBulkProducts(db: Db, companyId: number, count: number): void {
  if (count <= 0) return;
  const last = db
    .prepare<[number], { n: number }>(
      "SELECT COUNT(*) AS n FROM products WHERE company_id = ? AND sku LIKE 'BULK-%'",
    )
    .get(companyId);
  const from = (last?.n ?? 0) + 1;
  const insert = db.prepare(
    `INSERT INTO products (company_id, type, status, name, sku, slug, price, vat_rate, stock_quantity, track_stock,
       created_at, updated_at)
     VALUES (?, 'simple', 'active', ?, ?, ?, 10, 19, 0, 1, ?, ?)`,
  );
  const at = isoSeconds();
  forgetProductCount(db, companyId);
  db.transaction(() => {
    for (let i = from; i <= count; i++) {
      const sku = `BULK-${String(i).padStart(6, '0')}`;
      insert.run(companyId, `Bulk product ${i}`, sku, sku.toLowerCase(), at, at);
    }
  })();
}
