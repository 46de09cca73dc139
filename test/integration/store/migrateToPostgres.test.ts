import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresStore } from '../../../src/store/openPostgresStore.js';
import { openStore, type Store } from '../../../src/store/Store.js';
import { runCli } from '../../support/cli.js';
import { dropTestSchema, newTestSchema, TEST_POSTGRES_URL } from '../../support/testStores.js';

const URL = TEST_POSTGRES_URL;
const SCHEMA = newTestSchema();
/** Never printed: PostgreSQL here trusts loopback, so any password connects, and the output is searched for it. */
const PASSWORD = 'pg-secret-7d41c9';
const FINGERPRINTS = 2500; // more than one INSERT chunk (1000 rows)

let dir: string;
let sqlitePath: string;
let configFile: string;

const env = () => ({ PGPASSWORD: PASSWORD });
const migrate = (...extra: string[]) =>
  runCli(
    [
      'store',
      'migrate',
      '--to',
      'postgres',
      '--url',
      URL,
      '--schema',
      SCHEMA,
      '--config',
      configFile,
      ...extra,
    ],
    env(),
  );
const openCopy = () => openPostgresStore({ url: URL, schema: SCHEMA, password: PASSWORD });

/** Every kind of state the store keeps, written through the repositories as the pipelines write it. */
function populate(store: Store): void {
  store.account.bind({
    baseUrl: 'https://cms.example/api/v2',
    companyId: '1001',
    companyName: 'Demo SRL',
    taxId: 'RO123',
  });
  store.cursors.set('catalog', '2026-11-25T10:00:00.000Z');
  store.productLinks.upsertMany([
    {
      sku: 'SKU-1',
      variantSku: null,
      productId: 11,
      variantId: null,
      platformUpdatedAt: '2026-11-25T09:00:00Z',
    },
    { sku: 'SKU-2', variantSku: 'SKU-2-RED', productId: 12, variantId: 121, platformUpdatedAt: null },
  ]);
  const generation = store.generations.next('stock');
  store.fingerprints.putMany(
    'stock',
    Array.from({ length: FINGERPRINTS }, (_, i) => ({ key: `SKU-${i}`, hash: `h${i}`, generation })),
  );
  store.fingerprints.markMissing('stock', ['SKU-7'], generation);
  store.rejects.record({
    pipeline: 'stock',
    key: 'BAD-1',
    reason: 'quantity is not a number: "x"',
    source: { file: 'stock.csv', line: 4 },
  });
  const run = store.runs.start('stock', { full: false });
  store.runs.finish(run, { counts: { read: 3, sent: 2 } });
  store.leases.acquire('sync:prices', 'host-a:123', 3_600_000);
  store.bulkLimits.lower('/products/stock/bulk', 250, Date.now());
  store.orders.links.link({
    platformOrderId: 501,
    erpRef: 'SO-501',
    number: 'CMD-501',
    status: 'new',
    paymentStatus: 'paid',
    platformCreatedAt: '2026-11-25T08:00:00Z',
    lines: [{ sku: 'SKU-1', quantity: 2 }],
  });
  store.orders.seen.enqueue([{ id: 502, createdAt: '2026-11-25T08:01:00Z' }]);
  store.orders.parked.park({
    platformOrderId: 503,
    number: 'CMD-503',
    code: 'erp_rejected',
    reason: 'unknown SKU NOPE',
  });
  // Two events: their order (SQLite's rowid, a column on PostgreSQL) is what `waiting` lists them in.
  for (const eventId of ['ev-b', 'ev-a'])
    store.orders.events.wait({ eventId, orderId: 501, kind: 'shipped' }, { file: 'events.csv', line: 2 });
  store.orders.events.record({
    eventId: 'ev-c',
    platformOrderId: 501,
    kind: 'invoiced',
    outcome: 'applied',
    detail: null,
  });
  store.orders.outgoing.recordIntent('ERP-9', 'content-hash-9');
  store.orders.outgoing.markCreated('ERP-9', 601);
  store.products.creates.recordIntent('NEW-1', 'create-hash-1');
  store.products.fingerprints.update([{ sku: 'SKU-1', set: { name: 'n1', price: 'p1' } }]);
}

/** What the repositories read back: the same on the source and on the copy. */
function readBack(store: Store) {
  return {
    account: store.account.get(),
    cursor: store.cursors.get('catalog'),
    links: [store.productLinks.get('SKU-1'), store.productLinks.get('SKU-2', 'SKU-2-RED')],
    fingerprints: [...store.fingerprints.getMany('stock', ['SKU-0', 'SKU-1999', `SKU-${FINGERPRINTS - 1}`])],
    fingerprintCount: store.fingerprints.getMany(
      'stock',
      Array.from({ length: FINGERPRINTS }, (_, i) => `SKU-${i}`),
    ).size,
    missing: store.fingerprints.isMissing('stock', 'SKU-7'),
    rejects: store.rejects.list({ includeResolved: true }),
    runs: store.runs.recent(5).map(({ id, pipeline, status, counts }) => ({ id, pipeline, status, counts })),
    generation: store.generations.current('stock'),
    bulkLimit: store.bulkLimits.get('/products/stock/bulk')?.size,
    orderLink: store.orders.links.get(501),
    queued: store.orders.seen.queued(),
    parked: store.orders.parked.list(),
    waiting: store.orders.events.waiting().map((w) => w.event.eventId),
    applied: store.orders.events.get('ev-c')?.outcome,
    outgoing: store.orders.outgoing.get('ERP-9'),
    creates: store.products.creates.get('NEW-1'),
    productFields: store.products.fingerprints.get('SKU-1'),
  };
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'erp-sync-migrate-'));
  sqlitePath = join(dir, 'erp-sync.db');
  configFile = join(dir, 'erp-sync.yaml');
  writeFileSync(
    configFile,
    `erp: { type: file, path: ${join(dir, 'erp')} }\nstore: { path: ${sqlitePath} }\n`,
  );
  const store = openStore(sqlitePath);
  populate(store);
  store.close();
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  dropTestSchema(SCHEMA);
});

describe('erp-sync store migrate --to postgres', () => {
  it('copies every table of an SQLite store, verifies it, and the repositories read the same on PostgreSQL', async () => {
    const result = await migrate();
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`to ${URL} (schema ${SCHEMA})`);
    expect(result.stdout).toMatch(
      new RegExp(`^fingerprints\\s+${FINGERPRINTS}\\s+${FINGERPRINTS}\\s+\\w{12}\\s+same$`, 'm'),
    );
    expect(result.stdout).toMatch(/^applied_events\s+3\s+3\s+\w{12}\s+same$/m);
    expect(result.stdout).toMatch(/copied and verified: \d+ tables/);
    expect(result.stdout + result.stderr).not.toContain(PASSWORD);

    const source = openStore(sqlitePath, { mustExist: true });
    const copy = openCopy();
    try {
      const expected = readBack(source);
      expect(expected.fingerprintCount).toBe(FINGERPRINTS);
      expect(expected.waiting).toEqual(['ev-b', 'ev-a']);
      expect(readBack(copy)).toEqual(expected);
      // The lease goes on holding across the move: another owner cannot take it.
      expect(copy.leases.acquire('sync:prices', 'host-b:9', 30_000)).toBe(false);
      // New rows get ids after the copied ones (the identity sequences were moved on).
      const next = copy.runs.start('catalog');
      expect(next).toBeGreaterThan(Math.max(...expected.runs.map((r) => r.id)));
      copy.orders.events.wait(
        { eventId: 'ev-d', orderId: 501, kind: 'shipped' },
        { file: 'events.csv', line: 9 },
      );
      expect(copy.orders.events.waiting().map((w) => w.event.eventId)).toEqual(['ev-b', 'ev-a', 'ev-d']);
    } finally {
      copy.close();
      source.close();
    }
  }, 60_000);

  it('refuses a target that holds rows, names its tables, and copies over it with --replace', async () => {
    const refused = await migrate();
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /the target store is not empty \(.*fingerprints: 2500.*\); copy over it with --replace/,
    );
    const replaced = await migrate('--replace');
    expect(replaced.stderr).toBe('');
    expect(replaced.code).toBe(0);
    expect(replaced.stdout).toMatch(/^runs\s+1\s+1\s+\w{12}\s+same$/m); // the run added above is gone
  }, 60_000);

  it('detects a corrupted copy: a changed value and a missing row, by table', async () => {
    expect((await migrate('--check')).code).toBe(0);
    const copy = openCopy();
    copy.db.exec(`UPDATE fingerprints SET hash = 'tampered' WHERE key = 'SKU-42'`);
    copy.close();
    const changed = await migrate('--check');
    expect(changed.code).toBe(1);
    expect(changed.stdout).toMatch(/^fingerprints\s+2500\s+2500\s+\w{12}\s+DIFFERS/m);
    expect(changed.stdout).toMatch(/^product_links\s+2\s+2\s+\w{12}\s+same$/m);
    expect(changed.stderr).toContain(
      'the copy differs from the source: fingerprints: same 2500 row(s), different content',
    );

    const again = openCopy();
    again.db.exec(`DELETE FROM parked_orders`);
    again.close();
    const missing = await migrate('--check');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('parked_orders: 1 row(s) in the source, 0 in the copy');
    expect(missing.stdout + missing.stderr).not.toContain(PASSWORD);
  }, 60_000);

  it('refuses a URL that holds a password without showing it', async () => {
    const result = await runCli(
      [
        'store',
        'migrate',
        '--to',
        'postgres',
        '--url',
        `postgres://postgres:${PASSWORD}@127.0.0.1/test`,
        '--config',
        configFile,
      ],
      {},
    );
    expect(result.code).toBe(78);
    expect(result.stderr).toContain('holds a password');
    expect(result.stdout + result.stderr).not.toContain(PASSWORD);
  });
});
