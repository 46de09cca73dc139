import type { Db } from '../db/openDatabase.js';
import { isoSeconds } from '../http/time.js';
import type { SeedProfile } from './profiles.js';

export interface SeededProduct {
  id: number;
  sku: string;
  name: string;
  price: number;
  vat_rate: number;
  status: string;
  variants: { id: number; sku: string; name: string; price: number }[];
}

const HOUR = 3_600_000;

export const slugify = (s: string): string =>
  s
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

export function ean13(base12: string): string {
  const sum = [...base12].reduce((acc, d, i) => acc + Number(d) * (i % 2 === 0 ? 1 : 3), 0);
  return base12 + String((10 - (sum % 10)) % 10);
}

function seedCategories(db: Db, companyId: number, profile: SeedProfile): number[] {
  const insert = db.prepare(
    'INSERT INTO categories (company_id, parent_id, name, slug, position) VALUES (?, ?, ?, ?, ?)',
  );
  const leaves: number[] = [];
  const add = (parent: number | null, name: string, position: number): number =>
    Number(insert.run(companyId, parent, name, slugify(name), position).lastInsertRowid);
  Object.entries(profile.categories).forEach(([root, children], r) => {
    const rootId = add(null, root, r);
    if (children.length === 0) leaves.push(rootId);
    children.forEach((child, c) => {
      const [name = child, grand] = child.split('>');
      const childId = add(rootId, name, c);
      if (!grand) leaves.push(childId);
      grand?.split(';').forEach((g, k) => leaves.push(add(childId, g, k)));
    });
  });
  return leaves;
}

/** Brands, the category tree, tags and the products with variants, images and tags. */
export function seedCatalog(
  db: Db,
  companyId: number,
  profile: SeedProfile,
  rnd: () => number,
): SeededProduct[] {
  const pick = <T>(list: T[]): T => list[Math.floor(rnd() * list.length)] as T;
  const brandIds = profile.brands.map((name) =>
    Number(
      db.prepare('INSERT INTO brands (company_id, name) VALUES (?, ?)').run(companyId, name).lastInsertRowid,
    ),
  );
  const leafCategories = seedCategories(db, companyId, profile);
  const start = Date.parse(profile.createdFrom);
  const tagIds = profile.tags.map(([name, color], i) => {
    const at = isoSeconds(start + i * HOUR);
    return Number(
      db
        .prepare('INSERT INTO tags (company_id, name, color, created_at, updated_at) VALUES (?, ?, ?, ?, ?)')
        .run(companyId, name, color, at, at).lastInsertRowid,
    );
  });
  const insertProduct = db.prepare(
    `INSERT INTO products (company_id, type, status, name, sku, slug, ean, mpn, brand_id, category_id, price,
       sale_price, cost_price, vat_rate, stock_quantity, track_stock, highlights, short_description,
       long_description, weight_grams, length_mm, width_mm, height_mm, meta_title, meta_description,
       created_at, updated_at)
     VALUES (@company_id, @type, @status, @name, @sku, @slug, @ean, @mpn, @brand_id, @category_id, @price,
       @sale_price, @cost_price, @vat_rate, @stock_quantity, @track_stock, @highlights, @short_description,
       @long_description, @weight_grams, @length_mm, @width_mm, @height_mm, @meta_title, @meta_description,
       @created_at, @updated_at)`,
  );
  const insertVariant = db.prepare(
    `INSERT INTO variants (product_id, company_id, sku, name, price, sale_price, stock_quantity, position)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertImage = db.prepare('INSERT INTO images (product_id, url, alt, position) VALUES (?, ?, ?, ?)');
  const insertTag = db.prepare('INSERT OR IGNORE INTO product_tags (product_id, tag_id) VALUES (?, ?)');
  const products: SeededProduct[] = [];
  for (let i = 1; i <= profile.products; i++) {
    const variable = i % profile.variableEvery === 0;
    const status = i % 10 === 7 ? 'draft' : i % 10 === 9 ? 'archived' : 'active';
    const noun = pick(profile.nouns);
    const brandIndex = Math.floor(rnd() * brandIds.length);
    const name = `${noun} ${profile.brands[brandIndex]} ${100 + i}`;
    const sku = `${profile.skuPrefix}-${String(i).padStart(4, '0')}`;
    const price = Math.round(10 + rnd() * 1500) - 0.01;
    const vat = i % 11 === 0 ? 9 : i % 23 === 0 ? 5 : 19;
    const created = start + i * 6 * HOUR;
    const updated = created + Math.floor(rnd() * 30 * 24) * HOUR;
    const sizes = ['S', 'M', 'L', 'XL'].slice(0, 2 + Math.floor(rnd() * 3));
    const variantStocks = sizes.map(() => Math.floor(rnd() * 40));
    const stock = variable
      ? variantStocks.reduce((a, b) => a + b, 0)
      : i % 13 === 0
        ? 0
        : Math.floor(rnd() * 200);
    const id = Number(
      insertProduct.run({
        company_id: companyId,
        type: variable ? 'variable' : 'simple',
        status,
        name,
        sku,
        slug: `${slugify(name)}-${i}`,
        ean:
          i % 5 === 0 ? null : ean13(`594${String(companyId).padStart(3, '0')}${String(i).padStart(6, '0')}`),
        mpn: i % 3 === 0 ? `MPN-${profile.skuPrefix}${1000 + i}` : null,
        brand_id: i % 17 === 0 ? null : brandIds[brandIndex],
        category_id: i % 19 === 0 ? null : pick(leafCategories),
        price,
        sale_price: i % 5 === 2 ? Math.round(price * 0.85 * 100) / 100 : null,
        cost_price: Math.round(price * 0.6 * 100) / 100,
        vat_rate: vat,
        stock_quantity: stock,
        track_stock: i % 20 === 0 ? 0 : 1,
        highlights: JSON.stringify([`Garanție ${1 + (i % 3)} ani`, `Brand ${profile.brands[brandIndex]}`]),
        short_description: `${name}: descriere scurtă.`,
        long_description: i % 4 === 0 ? null : `<p>${name} este un produs demonstrativ al sandbox-ului.</p>`,
        weight_grams: 100 + Math.floor(rnd() * 5000),
        length_mm: 100 + (i % 50) * 10,
        width_mm: 80 + (i % 30) * 10,
        height_mm: 20 + (i % 20) * 10,
        meta_title: i % 2 === 0 ? name : null,
        meta_description: i % 2 === 0 ? `Cumpără ${name} online.` : null,
        created_at: isoSeconds(created),
        updated_at: isoSeconds(updated),
      }).lastInsertRowid,
    );
    const variants = variable
      ? sizes.map((size, k) => {
          const vPrice = Math.round((price + k * 10) * 100) / 100;
          const vSku = `${sku}-${size}`;
          const vName = `Mărime ${size}`;
          const vId = Number(
            insertVariant.run(id, companyId, vSku, vName, vPrice, null, variantStocks[k] ?? 0, k)
              .lastInsertRowid,
          );
          return { id: vId, sku: vSku, name: vName, price: vPrice };
        })
      : [];
    const imageCount = i % 9 === 0 ? 0 : 1 + (i % 3);
    for (let k = 0; k < imageCount; k++)
      insertImage.run(id, `https://cdn.sandbox.example/products/${sku}-${k + 1}.jpg`, name, k);
    const tagCount = Math.floor(rnd() * 4);
    for (let k = 0; k < tagCount; k++) insertTag.run(id, pick(tagIds));
    products.push({ id, sku, name, price, vat_rate: vat, status, variants });
  }
  return products;
}
