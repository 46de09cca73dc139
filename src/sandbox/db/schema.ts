/**
 * The sandbox's own SQLite schema. Every table with an `id` uses AUTOINCREMENT so that ids come
 * from one sequence per resource shared by all companies and are never reused.
 */
export const SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS companies (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  label TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  cui TEXT, reg_com TEXT,
  street TEXT, city TEXT, county TEXT, country TEXT, postal_code TEXT,
  email TEXT, phone TEXT,
  plan TEXT NOT NULL, subscription_status TEXT NOT NULL,
  currency TEXT NOT NULL, language TEXT NOT NULL,
  has_user INTEGER NOT NULL DEFAULT 1,
  order_prefix TEXT NOT NULL, next_order_number INTEGER NOT NULL DEFAULT 1,
  invoice_series TEXT NOT NULL, next_invoice_number INTEGER NOT NULL DEFAULT 1,
  created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS api_keys (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  company_id INTEGER NOT NULL REFERENCES companies(id),
  key TEXT NOT NULL UNIQUE,
  label TEXT NOT NULL,
  revoked INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS brands (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  company_id INTEGER NOT NULL REFERENCES companies(id),
  name TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS categories (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  company_id INTEGER NOT NULL REFERENCES companies(id),
  parent_id INTEGER REFERENCES categories(id),
  name TEXT NOT NULL, slug TEXT NOT NULL, position INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS products (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  company_id INTEGER NOT NULL REFERENCES companies(id),
  type TEXT NOT NULL, status TEXT NOT NULL,
  name TEXT NOT NULL, sku TEXT NOT NULL, slug TEXT NOT NULL,
  ean TEXT, mpn TEXT,
  brand_id INTEGER REFERENCES brands(id), category_id INTEGER REFERENCES categories(id),
  price REAL NOT NULL DEFAULT 0, sale_price REAL, cost_price REAL,
  vat_rate INTEGER NOT NULL DEFAULT 19,
  stock_quantity INTEGER NOT NULL DEFAULT 0,
  track_stock INTEGER NOT NULL DEFAULT 1,
  highlights TEXT NOT NULL DEFAULT '[]',
  short_description TEXT, long_description TEXT,
  weight_grams INTEGER, length_mm INTEGER, width_mm INTEGER, height_mm INTEGER,
  meta_title TEXT, meta_description TEXT,
  created_at TEXT NOT NULL, updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS products_company_sku ON products(company_id, sku);
CREATE INDEX IF NOT EXISTS products_company_updated ON products(company_id, updated_at);
CREATE INDEX IF NOT EXISTS products_company_id ON products(company_id, id);
CREATE TABLE IF NOT EXISTS variants (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  product_id INTEGER NOT NULL REFERENCES products(id),
  company_id INTEGER NOT NULL REFERENCES companies(id),
  sku TEXT NOT NULL, name TEXT NOT NULL,
  price REAL NOT NULL DEFAULT 0, sale_price REAL,
  stock_quantity INTEGER NOT NULL DEFAULT 0,
  position INTEGER NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX IF NOT EXISTS variants_company_sku ON variants(company_id, sku);
CREATE INDEX IF NOT EXISTS variants_product ON variants(product_id);
CREATE TABLE IF NOT EXISTS images (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  product_id INTEGER NOT NULL REFERENCES products(id),
  url TEXT NOT NULL, alt TEXT, position INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS images_product ON images(product_id);
CREATE TABLE IF NOT EXISTS tags (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  company_id INTEGER NOT NULL REFERENCES companies(id),
  name TEXT NOT NULL, color TEXT,
  created_at TEXT NOT NULL, updated_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS product_tags (
  product_id INTEGER NOT NULL REFERENCES products(id),
  tag_id INTEGER NOT NULL REFERENCES tags(id),
  PRIMARY KEY (product_id, tag_id)
);
CREATE INDEX IF NOT EXISTS product_tags_tag ON product_tags(tag_id);
CREATE TABLE IF NOT EXISTS customers (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  company_id INTEGER NOT NULL REFERENCES companies(id),
  name TEXT NOT NULL, email TEXT, phone TEXT,
  company_name TEXT, cui TEXT, reg_com TEXT, notes TEXT,
  street TEXT, city TEXT, county TEXT, country TEXT, postal_code TEXT,
  created_at TEXT NOT NULL, updated_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS customers_company_email ON customers(company_id, email COLLATE NOCASE);
CREATE TABLE IF NOT EXISTS orders (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  company_id INTEGER NOT NULL REFERENCES companies(id),
  number TEXT NOT NULL,
  status TEXT NOT NULL, payment_status TEXT NOT NULL, currency TEXT NOT NULL,
  source_order_id TEXT,
  customer_id INTEGER NOT NULL REFERENCES customers(id),
  subtotal REAL NOT NULL, shipping_total REAL NOT NULL, discount_total REAL NOT NULL,
  tax_total REAL NOT NULL, total REAL NOT NULL,
  payment_method TEXT, shipping_method TEXT, notes TEXT,
  labels TEXT NOT NULL DEFAULT '[]',
  created_at TEXT NOT NULL, updated_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS orders_company ON orders(company_id, id);
CREATE INDEX IF NOT EXISTS orders_customer ON orders(customer_id);
CREATE TABLE IF NOT EXISTS order_items (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  order_id INTEGER NOT NULL REFERENCES orders(id),
  product_id INTEGER NOT NULL, variant_id INTEGER,
  sku TEXT NOT NULL, name TEXT NOT NULL,
  quantity INTEGER NOT NULL, unit_price REAL NOT NULL, tax_rate REAL NOT NULL, total REAL NOT NULL,
  stock_taken INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS order_items_order ON order_items(order_id);
CREATE TABLE IF NOT EXISTS order_history (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  order_id INTEGER NOT NULL REFERENCES orders(id),
  from_status TEXT, to_status TEXT NOT NULL, note TEXT, at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS order_history_order ON order_history(order_id);
CREATE TABLE IF NOT EXISTS notifications (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  company_id INTEGER NOT NULL, order_id INTEGER NOT NULL,
  type TEXT NOT NULL, payload TEXT NOT NULL, created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS awbs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  order_id INTEGER NOT NULL UNIQUE REFERENCES orders(id),
  number TEXT NOT NULL, courier TEXT NOT NULL,
  weight REAL NOT NULL, parcels INTEGER NOT NULL, cod_amount REAL NOT NULL,
  created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS invoices (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  order_id INTEGER NOT NULL UNIQUE REFERENCES orders(id),
  series TEXT NOT NULL, number INTEGER NOT NULL, total REAL NOT NULL, issued_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS returns (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  company_id INTEGER NOT NULL REFERENCES companies(id),
  order_id INTEGER NOT NULL REFERENCES orders(id),
  customer_id INTEGER NOT NULL REFERENCES customers(id),
  status TEXT NOT NULL, reason TEXT, refund_amount REAL NOT NULL,
  created_at TEXT NOT NULL, updated_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS return_lines (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  return_id INTEGER NOT NULL REFERENCES returns(id),
  product_id INTEGER NOT NULL, variant_id INTEGER,
  sku TEXT NOT NULL, name TEXT NOT NULL, quantity INTEGER NOT NULL,
  unit_price REAL NOT NULL, reason TEXT
);
CREATE TABLE IF NOT EXISTS offers (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  company_id INTEGER NOT NULL REFERENCES companies(id),
  product_id INTEGER NOT NULL REFERENCES products(id),
  marketplace TEXT NOT NULL, external_id TEXT NOT NULL, title TEXT NOT NULL,
  price REAL NOT NULL, stock_quantity INTEGER NOT NULL, status TEXT NOT NULL, url TEXT,
  created_at TEXT NOT NULL, updated_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS connections (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  company_id INTEGER NOT NULL REFERENCES companies(id),
  kind TEXT NOT NULL,
  code TEXT NOT NULL, name TEXT NOT NULL, status TEXT NOT NULL,
  details TEXT NOT NULL DEFAULT '{}',
  credentials TEXT,
  created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS currencies (
  id INTEGER PRIMARY KEY AUTOINCREMENT, code TEXT NOT NULL UNIQUE, name TEXT NOT NULL,
  symbol TEXT NOT NULL, decimals INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS languages (
  id INTEGER PRIMARY KEY AUTOINCREMENT, code TEXT NOT NULL UNIQUE, name TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS countries (
  id INTEGER PRIMARY KEY AUTOINCREMENT, code TEXT NOT NULL UNIQUE, name TEXT NOT NULL,
  eu INTEGER NOT NULL
);
`;
