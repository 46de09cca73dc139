import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeConfigFile } from '../../../src/config.js';
import { SqlErpAdapter } from '../../../src/erp/sql/SqlErpAdapter.js';
import { readMarkReceipt } from '../../../src/erp/sql/sqlReadMark.js';
import { silentLogger } from '../../../src/logger.js';
import { startSandbox } from '../../../src/sandbox/index.js';
import type { RunSummary } from '../../../src/sync/frame/types.js';
import { runCli } from '../../support/cli.js';
import { createTestDatabase, type TestDatabase } from '../../support/sqlDatabases.js';

type Sandbox = Awaited<ReturnType<typeof startSandbox>>;

const sku = (n: number): string => `BULK-${String(n).padStart(6, '0')}`;
const QUERIES = {
  stock: 'select code as sku, qty as quantity from stock_items order by code',
  stockChanges:
    'select code as sku, qty as quantity from stock_items where changed_at > :since order by code',
};

describe('incremental SQL reads (stockChanges with :since), checkpoint kept in the store', () => {
  let sandbox: Sandbox;
  let database: TestDatabase;
  let dir: string;
  let configFile: string;

  const run = async (
    ...flags: string[]
  ): Promise<{ code: number | null; summary: RunSummary; stderr: string }> => {
    const result = await runCli(['run-once', '--only', 'stock', '--json', '--config', configFile, ...flags], {
      CMS_BASE_URL: sandbox.url,
      CMS_API_KEY: sandbox.keys.primary,
    });
    const summary = (JSON.parse(result.stdout) as { summaries: RunSummary[] }).summaries[0]!;
    return { code: result.code, summary, stderr: result.stderr };
  };
  const bulkItems = (): string[] =>
    sandbox.requestLog
      .entries()
      .filter((e) => e.method === 'PATCH' && e.status === 200)
      .flatMap((e) => (e.body as { items: { sku: string }[] }).items.map((i) => i.sku));
  const touch = (codes: string[], qty: number) =>
    database.db('stock_items').whereIn('code', codes).update({ qty, changed_at: database.db.fn.now() });

  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, seed: 'empty', extraProducts: 30, recordBodies: true });
    database = await createTestDatabase('pg');
    await database.db.raw(
      "create table stock_items (code text primary key, qty int not null, changed_at timestamptz not null default now() - interval '1 hour')",
    );
    await database
      .db('stock_items')
      .insert(Array.from({ length: 30 }, (_, i) => ({ code: sku(i + 1), qty: i })));
    dir = mkdtempSync(join(tmpdir(), 'erp-sync-sql-incr-'));
    configFile = writeConfigFile(join(dir, 'config.yaml'), {
      api: { retries: 1 },
      erp: {
        type: 'sql',
        client: 'pg',
        connection: database.connection,
        queries: QUERIES,
        // no overlap here, so that "only what changed" can be counted exactly
        incremental: { overlapSeconds: 0 },
      },
      store: { path: join(dir, 'erp-sync.db') },
      orders: { oversellGuard: { enabled: false } },
      log: { level: 'warn' },
    });
  });
  afterAll(async () => {
    await sandbox?.close();
    await database?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('reads everything first, then only rows changed since the last acknowledged read', async () => {
    const first = await run();
    expect(first.code, first.stderr).toBe(0);
    expect(first.summary).toMatchObject({ read: 30, sent: 30, applied: 30 });

    sandbox.requestLog.clear();
    const quiet = await run();
    expect(quiet.summary).toMatchObject({ read: 0, sent: 0 });
    expect(bulkItems()).toEqual([]);

    await touch([sku(3), sku(17)], 99);
    sandbox.requestLog.clear();
    const changed = await run();
    expect(changed.summary).toMatchObject({ read: 2, sent: 2, applied: 2 });
    expect(bulkItems().sort()).toEqual([sku(3), sku(17)]);
  });

  it('keeps the checkpoint when a push fails, so the next run reads the change again', async () => {
    await touch([sku(5)], 55);
    sandbox.setFaults('error_rate=1,only=PATCH /products/stock/bulk');
    const failed = await run();
    expect(failed.code).toBe(1);
    expect(failed.summary.failed).toBe(1);
    sandbox.setFaults(null);
    sandbox.requestLog.clear();
    const again = await run();
    expect(again.code).toBe(0);
    expect(again.summary).toMatchObject({ read: 1, sent: 1, applied: 1 });
    expect(bulkItems()).toEqual([sku(5)]);
  });

  it('reads everything with --full, and sends only what differs from the fingerprints without it', async () => {
    sandbox.requestLog.clear();
    const full = await run('--full');
    expect(full.summary).toMatchObject({ read: 30, sent: 30 });
    sandbox.requestLog.clear();
    const after = await run();
    expect(after.summary).toMatchObject({ read: 0, sent: 0 });
  });

  it('does a full read when the last one is older than fullEveryMinutes, whatever the checkpoint', async () => {
    const adapter = new SqlErpAdapter(database.erpConfig({ queries: QUERIES }), silentLogger());
    try {
      const now = new Date().toISOString();
      const recentFull = readMarkReceipt({ mark: now, fullAt: now });
      const oldFull = readMarkReceipt({
        mark: now,
        fullAt: new Date(Date.now() - 2 * 86_400_000).toISOString(),
      });
      const count = async (receipt: typeof recentFull) => {
        let n = 0;
        const read = adapter.stock(receipt);
        for await (const row of read) if (row.ok) n++;
        return { n, receipt: read.receipt };
      };
      // the default overlap (120 s) re-reads the rows changed just before the mark: 3, 5 and 17
      expect((await count(recentFull)).n).toBe(3);
      const due = await count(oldFull);
      expect(due.n).toBe(30);
      expect(JSON.parse(due.receipt!).sql.fullAt).not.toBe(JSON.parse(oldFull).sql.fullAt);
      expect(adapter.capabilities.reads.stock).toBe('delta');
    } finally {
      await adapter.close();
    }
  });
});
