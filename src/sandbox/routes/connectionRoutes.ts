import { stmt } from '../db/statements.js';
import { ListQuery, listEnvelope } from '../http/listQuery.js';
import type { Router } from '../http/router.js';

interface ConnectionRow {
  id: number;
  code: string;
  name: string;
  status: string;
  details: string;
  created_at: string;
}

const LISTS: [path: string, kind: string][] = [
  ['/marketplaces/list', 'marketplace'],
  ['/couriers', 'courier'],
  ['/billing-software', 'billing_software'],
  ['/websites/list', 'website'],
  ['/fulfillments/list', 'fulfillment'],
];

const REFERENCE: [
  path: string,
  sql: string,
  map?: (r: Record<string, unknown>) => Record<string, unknown>,
][] = [
  ['/general/currencies', 'SELECT id, code, name, symbol, decimals FROM currencies'],
  ['/general/languages', 'SELECT id, code, name FROM languages'],
  ['/general/countries', 'SELECT id, code, name, eu FROM countries', (r) => ({ ...r, eu: r.eu === 1 })],
];

/** Connection lists (credentials are never selected, so they cannot leak) and reference lists. */
export function registerConnectionRoutes(router: Router): void {
  for (const [path, kind] of LISTS)
    router.get(path, ({ db, company, query }) => {
      const q = new ListQuery(query);
      const page = q.page();
      q.done();
      const total =
        stmt<[number, string], { n: number }>(
          db,
          'SELECT COUNT(*) AS n FROM connections WHERE company_id = ? AND kind = ?',
        ).get(company.id, kind)?.n ?? 0;
      const rows = stmt<[number, string, number, number], ConnectionRow>(
        db,
        'SELECT id, code, name, status, details, created_at FROM connections WHERE company_id = ? AND kind = ? ORDER BY id LIMIT ? OFFSET ?',
      ).all(company.id, kind, page.perPage, page.offset);
      const data = rows.map(({ details, created_at, ...rest }) => ({
        ...rest,
        ...(JSON.parse(details) as Record<string, unknown>),
        created_at,
      }));
      return { status: 200, body: listEnvelope(data, page, total) };
    });

  for (const [path, sql, map] of REFERENCE)
    router.get(path, ({ db, query }) => {
      const q = new ListQuery(query);
      const page = q.page();
      q.done();
      const total = stmt<[], { n: number }>(db, `SELECT COUNT(*) AS n FROM (${sql})`).get()?.n ?? 0;
      const rows = stmt<[number, number], Record<string, unknown>>(
        db,
        `${sql} ORDER BY id LIMIT ? OFFSET ?`,
      ).all(page.perPage, page.offset);
      return { status: 200, body: listEnvelope(map ? rows.map(map) : rows, page, total) };
    });
}
