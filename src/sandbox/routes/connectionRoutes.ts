import { pageOf } from '../db/statements.js';
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
  table: string,
  columns: string,
  map?: (r: Record<string, unknown>) => Record<string, unknown>,
][] = [
  ['/general/currencies', 'currencies', 'id, code, name, symbol, decimals'],
  ['/general/languages', 'languages', 'id, code, name'],
  ['/general/countries', 'countries', 'id, code, name, eu', (r) => ({ ...r, eu: r.eu === 1 })],
];

/** Connection lists (credentials are never selected, so they cannot leak) and reference lists. */
export function registerConnectionRoutes(router: Router): void {
  for (const [path, kind] of LISTS)
    router.get(path, ({ db, company, query }) => {
      const q = new ListQuery(query);
      const page = q.page();
      q.done();
      const { rows, total } = pageOf<ConnectionRow>(
        db,
        {
          columns: 'id, code, name, status, details, created_at',
          from: 'connections',
          where: 'company_id = @company AND kind = @kind',
          orderBy: 'id',
          params: { company: company.id, kind },
        },
        page,
      );
      const data = rows.map(({ details, created_at, ...rest }) => ({
        ...rest,
        ...(JSON.parse(details) as Record<string, unknown>),
        created_at,
      }));
      return { status: 200, body: listEnvelope(data, page, total) };
    });

  for (const [path, table, columns, map] of REFERENCE)
    router.get(path, ({ db, query }) => {
      const q = new ListQuery(query);
      const page = q.page();
      q.done();
      const { rows, total } = pageOf<Record<string, unknown>>(
        db,
        { columns, from: table, where: '1', orderBy: 'id', params: {} },
        page,
      );
      return { status: 200, body: listEnvelope(map ? rows.map(map) : rows, page, total) };
    });
}
