import type { Db } from '../db/openDatabase.js';
import { pageOf, stmt } from '../db/statements.js';
import { noUpdatableField, notFound, validationError } from '../http/apiError.js';
import { bodyObject, Fields, Issues, type Obj } from '../http/fields.js';
import { ListQuery, listEnvelope } from '../http/listQuery.js';
import { created, idParam, ok, type Router } from '../http/router.js';
import { isoSeconds } from '../http/time.js';
import { touchProducts } from '../products/productRepo.js';

interface TagRow {
  id: number;
  name: string;
  color: string | null;
  products_count: number;
  created_at: string;
  updated_at: string;
}

const TAG_COLUMNS =
  't.id, t.name, t.color, t.created_at, t.updated_at, (SELECT COUNT(*) FROM product_tags pt WHERE pt.tag_id = t.id) AS products_count';
const TAG_SELECT = `SELECT ${TAG_COLUMNS} FROM tags t`;

const serialize = (t: TagRow): Record<string, unknown> => ({ ...t });

function tagById(db: Db, companyId: number, id: number): TagRow {
  const row = stmt<[number, number], TagRow>(db, `${TAG_SELECT} WHERE t.id = ? AND t.company_id = ?`).get(
    id,
    companyId,
  );
  if (!row) throw notFound('Tag');
  return row;
}

function taggedProducts(db: Db, tagId: number): number[] {
  return stmt<[number], { product_id: number }>(db, 'SELECT product_id FROM product_tags WHERE tag_id = ?')
    .all(tagId)
    .map((r) => r.product_id);
}

/** Names are unique per company, case-insensitively. */
function readTag(
  db: Db,
  companyId: number,
  body: Obj,
  mode: 'create' | 'update',
  selfId?: number,
): { name?: string; color?: string | null } {
  const issues = new Issues();
  const f = new Fields(body, issues);
  const name = f.string('name', { required: mode === 'create', nonEmpty: true, max: 60 })?.trim();
  const color = f.string('color', { nullable: true, max: 32 });
  if (mode === 'update' && issues.count === 0 && name === undefined && color === undefined)
    throw noUpdatableField();
  if (name !== undefined) {
    const lower = name.toLocaleLowerCase('en');
    if (
      stmt<[number, number], { name: string }>(db, 'SELECT name FROM tags WHERE company_id = ? AND id != ?')
        .all(companyId, selfId ?? 0)
        .some((t) => t.name.toLocaleLowerCase('en') === lower)
    )
      issues.add('name', 'is already used by another tag');
  }
  issues.throwIfAny();
  return { ...(name !== undefined ? { name } : {}), ...(color !== undefined ? { color } : {}) };
}

/** `product_ids`: a non-empty array of the company's product ids; unknown ids are named in the 422. */
function readProductIds(db: Db, companyId: number, body: Obj): number[] {
  const raw = body.product_ids;
  if (!Array.isArray(raw) || raw.length === 0)
    throw validationError({ product_ids: ['is required: a non-empty array of product ids'] });
  const issues = new Issues();
  raw.forEach((v, i) => {
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 1)
      issues.add(`product_ids.${i}`, 'must be a product id');
  });
  issues.throwIfAny();
  const ids = [...new Set(raw as number[])];
  const known = new Set(
    stmt<[number, string], { id: number }>(
      db,
      'SELECT id FROM products WHERE company_id = ? AND id IN (SELECT value FROM json_each(?))',
    )
      .all(companyId, JSON.stringify(ids))
      .map((r) => r.id),
  );
  const unknown = ids.filter((id) => !known.has(id));
  if (unknown.length > 0)
    throw validationError({ product_ids: [`unknown product ids: ${unknown.join(', ')}`] });
  return ids;
}

export function registerTagRoutes(router: Router): void {
  router.get('/tags', ({ db, company, query }) => {
    const q = new ListQuery(query);
    const page = q.page();
    const search = q.search();
    q.done();
    const { rows, total } = pageOf<TagRow>(
      db,
      {
        columns: TAG_COLUMNS,
        from: 'tags t',
        where: `t.company_id = @company${search !== undefined ? ' AND icontains(t.name, @q)' : ''}`,
        orderBy: 't.id',
        params: { company: company.id, q: search ?? '' },
      },
      page,
    );
    return { status: 200, body: listEnvelope(rows.map(serialize), page, total) };
  });

  router.post('/tags', ({ db, company, body }) => {
    const input = readTag(db, company.id, bodyObject(body), 'create');
    const now = isoSeconds();
    const id = stmt(
      db,
      'INSERT INTO tags (company_id, name, color, created_at, updated_at) VALUES (?, ?, ?, ?, ?)',
    ).run(company.id, input.name, input.color ?? null, now, now).lastInsertRowid;
    return created(serialize(tagById(db, company.id, Number(id))));
  });

  router.put('/tags/:id', ({ db, company, params, body }) => {
    const tag = tagById(db, company.id, idParam(params));
    const input = readTag(db, company.id, bodyObject(body), 'update', tag.id);
    const now = isoSeconds();
    stmt(db, 'UPDATE tags SET name = ?, color = ?, updated_at = ? WHERE id = ?').run(
      input.name ?? tag.name,
      input.color !== undefined ? input.color : tag.color,
      now,
      tag.id,
    );
    touchProducts(db, taggedProducts(db, tag.id), now);
    return ok(serialize(tagById(db, company.id, tag.id)));
  });

  router.delete('/tags/:id', ({ db, company, params }) => {
    const tag = tagById(db, company.id, idParam(params));
    const products = taggedProducts(db, tag.id);
    stmt(db, 'DELETE FROM product_tags WHERE tag_id = ?').run(tag.id);
    stmt(db, 'DELETE FROM tags WHERE id = ?').run(tag.id);
    touchProducts(db, products, isoSeconds());
    return ok({ id: tag.id, deleted: true, detached: products.length });
  });

  // attach and detach differ only in the statement and the name of the count they report.
  for (const [action, sql] of [
    ['attach', 'INSERT OR IGNORE INTO product_tags (product_id, tag_id) VALUES (?, ?)'],
    ['detach', 'DELETE FROM product_tags WHERE product_id = ? AND tag_id = ?'],
  ] as const)
    router.post(`/tags/:id/${action}`, ({ db, company, params, body }) => {
      const tag = tagById(db, company.id, idParam(params));
      const ids = readProductIds(db, company.id, bodyObject(body));
      const write = stmt<[number, number]>(db, sql);
      const changed = ids.filter((id) => write.run(id, tag.id).changes > 0);
      touchProducts(db, changed, isoSeconds());
      return ok({ tag_id: tag.id, [`${action}ed`]: changed.length, product_ids: ids });
    });
}
