import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreNotFoundError } from '../../../src/store/StoreError.js';
import type { AuditFix } from '../../../src/cli/healAuditDrift.js';
import { runAudit, type AuditFinding, type AuditReport } from '../../../src/diagnostics/audit.js';
import { runPrices } from '../../../src/sync/push/prices.js';
import { runStock } from '../../../src/sync/push/stock.js';
import type { SyncContext } from '../../../src/sync/frame/types.js';
import { runCli } from '../../support/cli.js';
import { createPlatformOrder } from '../../support/orderChecks.js';
import { bulkSku, createHarness, type Harness } from '../../support/syncHarness.js';
import { missingStores } from '../../support/missingStores.js';
import { TEST_POSTGRES_URL } from '../../support/testStores.js';

const RUN = { full: false, dryRun: false };
const ALL = ['stock', 'prices', 'orders'] as const;
let harness: Harness;
let ctx: SyncContext;
let configFile: string;
let env: Record<string, string>;

function finding(report: AuditReport, kind: string, key: string | number): AuditFinding | undefined {
  return report.findings.find((f) => f.kind === kind && f.key === String(key));
}

beforeAll(async () => {
  harness = await createHarness({ extraProducts: 12 });
  harness.writeStock([1, 2, 3, 4, 5].map((n) => ({ sku: bulkSku(n), quantity: n * 10 })));
  harness.writePrices([1, 2, 3, 4, 5].map((n) => ({ sku: bulkSku(n), price: 10 + n, vat_rate: 19 })));
  ctx = await harness.context();
  expect(await runStock(ctx, RUN)).toMatchObject({ applied: 5 });
  expect(await runPrices(ctx, RUN)).toMatchObject({ applied: 5 });
  configFile = harness.configFile();
  env = {
    CMS_BASE_URL: harness.sandbox.url,
    CMS_API_KEY: harness.sandbox.keys.primary,
    REDIS_URL: 'redis://127.0.0.1:9',
  };
});

afterAll(async () => {
  await harness.close();
});

describe('erp-sync audit', () => {
  it('finds nothing when the ERP and the platform are in step, and exits 0', async () => {
    const report = await runAudit(ctx, { pipelines: ALL, max: 100 });
    expect(report).toMatchObject({
      complete: true,
      drift: 0,
      read: { platformItems: 12, erpRows: { stock: 5, prices: 5 } },
    });
    const cli = await runCli(['audit', '--config', configFile], env);
    expect(cli.stdout).toContain('in step: no drift found');
    expect(cli.code).toBe(0);
  });

  it('lists drift of each kind with why it heals or not, exits 1, and sends no write request', async () => {
    // Stock: a new ERP value (a run is due), a value changed on the platform after our push, a SKU the
    // platform lacks, a bad ERP row for a SKU the platform has. Prices: a new ERP price.
    harness.writeStock([
      { sku: bulkSku(1), quantity: 11 },
      { sku: bulkSku(2), quantity: 20 },
      { sku: bulkSku(3), quantity: 'many' },
      { sku: bulkSku(4), quantity: 40 },
      { sku: bulkSku(5), quantity: 50 },
      { sku: 'NOT-ON-PLATFORM', quantity: 3 },
    ]);
    harness.writePrices(
      [1, 2, 3, 4, 5].map((n) => ({ sku: bulkSku(n), price: n === 4 ? 99 : 10 + n, vat_rate: 19 })),
    );
    const platform = await harness.platform(ctx);
    await ctx.client.products.updateStock(platform.get(bulkSku(2))!.id, { quantity: 7 });
    // Orders: one new order never imported, one parked, one linked that the platform does not have.
    const fresh = await createPlatformOrder(ctx.client, bulkSku(10));
    const parked = await createPlatformOrder(ctx.client, bulkSku(11));
    ctx.store.orders.parked.park({
      platformOrderId: parked.id,
      number: null,
      code: 'erp_rejected',
      reason: 'unknown customer',
    });
    ctx.store.orders.links.link({
      platformOrderId: 999_999,
      erpRef: 'SO-GONE',
      number: null,
      status: 'confirmed',
      paymentStatus: 'paid',
      platformCreatedAt: null,
      lines: [],
    });
    // A stock run records the bad row's reject, as it would in production (and we want its file:line).
    harness.sandbox.requestLog.clear();

    const report = await runAudit(ctx, { pipelines: ALL, max: 100 });
    expect(report.complete).toBe(true);
    expect(finding(report, 'stock', bulkSku(1))).toMatchObject({
      platform: 10,
      expected: 11,
      heals: true,
      why: expect.stringMatching(/a stock run is due/),
    });
    expect(finding(report, 'stock', bulkSku(2))).toMatchObject({
      platform: 7,
      expected: 20,
      heals: true,
      why: expect.stringMatching(/changed on the platform/),
    });
    expect(finding(report, 'stock', bulkSku(3))).toMatchObject({
      platform: 30,
      heals: false,
      why: expect.stringMatching(/ERP row is rejected/),
    });
    expect(finding(report, 'stock', 'NOT-ON-PLATFORM')).toMatchObject({
      platform: null,
      heals: false,
      why: expect.stringMatching(/not on the platform/),
    });
    expect(finding(report, 'prices', bulkSku(4))).toMatchObject({
      expected: 'p=99|s=null|v=19',
      heals: true,
    });
    expect(finding(report, 'order_not_in_erp', fresh.id)).toMatchObject({
      heals: true,
      why: expect.stringMatching(/orders run is due/),
    });
    expect(finding(report, 'order_not_in_erp', parked.id)).toMatchObject({
      heals: false,
      why: expect.stringMatching(/parked: unknown customer/),
    });
    expect(finding(report, 'order_gone', 999_999)).toMatchObject({
      heals: false,
      why: expect.stringMatching(/SO-GONE/),
    });
    expect(report.counts).toEqual({ stock: 4, prices: 1, order_not_in_erp: 2, order_gone: 1 });

    const cli = await runCli(['audit', '--config', configFile, '--json', '--max', '3'], env);
    expect(cli.code).toBe(1);
    const json = JSON.parse(cli.stdout) as AuditReport;
    expect(json).toMatchObject({ drift: 8, truncated: true });
    expect(json.findings).toHaveLength(3);
    const text = await runCli(['audit', '--config', configFile, '--pipeline', 'stock'], env);
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/drift: 4 \(stock 4\)/);
    expect(text.stdout).toMatch(
      /BULK-000001: platform 10, erp-sync would push 11\n\s+heals: a stock run is due/,
    );
    expect(harness.writes()).toEqual([]);
  });

  it('--fix pushes exactly the items whose push heals the drift, and the next audit finds only what a person must fix', async () => {
    harness.sandbox.requestLog.clear();
    const cli = await runCli(
      ['audit', '--config', configFile, '--pipeline', 'stock,prices', '--fix', '--json'],
      env,
    );
    expect(cli.code).toBe(1);
    // No Redis answers (a refused port): no daemon can take the pushes, so they go out from here.
    expect((JSON.parse(cli.stdout) as { fix: AuditFix }).fix).toMatchObject({
      outcome: { via: 'inline', enqueued: [] },
      why: 'Redis at redis://127.0.0.1:9 is not reachable, so no daemon',
    });
    const bodies = harness
      .writes()
      .map((entry) => ({ path: entry.path, items: (entry.body as { items: unknown[] }).items }));
    expect(bodies).toEqual([
      {
        path: '/api/v2/products/stock/bulk',
        items: [
          { sku: bulkSku(1), quantity: 11 },
          { sku: bulkSku(2), quantity: 20 },
        ],
      },
      {
        path: '/api/v2/products/prices/bulk',
        items: [{ sku: bulkSku(4), price: 99, sale_price: null, vat_rate: 19 }],
      },
    ]);
    harness.sandbox.requestLog.clear();
    const after = await runAudit(ctx, { pipelines: ['stock', 'prices'], max: 100 });
    expect(after.findings.map((f) => [f.kind, f.key, f.heals])).toEqual([
      ['stock', bulkSku(3), false],
      ['stock', 'NOT-ON-PLATFORM', false],
    ]);
    // The fix recorded what the platform acknowledged: a stock run now sends nothing for them.
    const stock = await runStock(ctx, RUN);
    expect(stock).toMatchObject({ unchanged: 4, sent: 1, notFound: 1 });
  });

  it('--fix whose push the platform does not confirm exits 2, naming the pipeline, the batch and why', async () => {
    harness.writeStock([
      { sku: bulkSku(1), quantity: 11 },
      { sku: bulkSku(2), quantity: 20 },
      { sku: bulkSku(4), quantity: 40 },
      { sku: bulkSku(5), quantity: 55 },
    ]);
    // Every stock bulk answers 5xx: the audit's reads go through, the healing push does not.
    harness.sandbox.setFaults('error_rate=1,only=PATCH /products/stock/bulk');
    // Not retried (the client's retries would only make the test slower): the same file, rewritten.
    // --inline: pushed from here without first looking for a daemon's Redis (2 s per run for the
    // refused port; the test above covers that path).
    const noRetries = harness.configFile({ api: { retries: 0 } });
    const fix = ['audit', '--pipeline', 'stock', '--fix', '--inline'];
    try {
      const text = await runCli([...fix, '--config', noRetries], env);
      expect(text.stdout).toMatch(/drift: 1 \(stock 1\)/);
      expect(text.stdout).toMatch(
        new RegExp(`\\nfix failed: stock batch 1 of 1 \\(1 item\\(s\\): ${bulkSku(5)}\\): api_\\w+: `),
      );
      expect(text.code).toBe(2);
      const json = await runCli([...fix, '--json', '--config', noRetries], env);
      expect(json.code).toBe(2);
      expect((JSON.parse(json.stdout) as { fix: AuditFix }).fix.outcome.failures).toEqual([
        {
          pipeline: 'stock',
          part: `batch 1 of 1 (1 item(s): ${bulkSku(5)})`,
          reason: expect.stringMatching(/^api_\w+: /) as string,
        },
      ]);
    } finally {
      harness.sandbox.setFaults(null);
      expect(harness.configFile()).toBe(configFile);
    }
    // With the platform answering again, the same fix goes through: drift found and healed, exit 1.
    const healed = await runCli([...fix, '--config', configFile], env);
    expect(healed.stdout).not.toMatch(/fix failed/);
    expect(healed.code).toBe(1);
    // Three commands, each loading the sources through tsx (about 1.5 s of CPU): under a load of 15
    // on 2 cores that is about 10 s each, which the default 30 s does not fit.
  }, 90_000);

  it("exits 2 within seconds when it cannot finish (platform unreachable): 2 short retries, not the daemon's 5", async () => {
    // The configured client (the default 5 retries, backing off to 15 s) would wait 15-30 s here.
    const warnings = harness.configFile({ logLevel: 'warn' });
    let cli;
    try {
      cli = await runCli(['audit', '--config', warnings], { ...env, CMS_BASE_URL: 'http://127.0.0.1:9' });
    } finally {
      expect(harness.configFile()).toBe(configFile);
    }
    expect(cli.stdout).toMatch(/could not finish: GET \/products: ECONNREFUSED/);
    expect(cli.code).toBe(2);
    const retries = cli.stderr
      .split('\n')
      .filter((line) => line.includes('API call failed, retrying'))
      .map((line) => (JSON.parse(line) as { delayMs: number }).delayMs);
    expect(retries).toHaveLength(2);
    expect(Math.max(...retries)).toBeLessThanOrEqual(2_000);
  });

  it('refuses an unknown pipeline as a usage error', async () => {
    const cli = await runCli(['audit', '--config', configFile, '--pipeline', 'stock,catalog'], env);
    expect(cli.stderr).toMatch(/unknown pipeline\(s\) catalog/);
    expect(cli.code).toBe(64);
  });
});

describe('erp-sync audit on a store that does not exist', () => {
  it('refuses it as status does (no store at ...), with --fix too, and creates no file and no schema', async () => {
    const { file, location, sqliteConfig, postgresConfig, postgres } = missingStores(harness.dir);
    try {
      const [sqlite, sqliteFix, postgresAudit, postgresFix, sqliteStatus] = await Promise.all([
        runCli(['audit', '--config', sqliteConfig], env),
        runCli(['audit', '--fix', '--inline', '--config', sqliteConfig], env),
        runCli(['audit', '--pipeline', 'stock', '--config', postgresConfig], env),
        runCli(['audit', '--fix', '--config', postgresConfig], env),
        runCli(['status', '--config', sqliteConfig], env),
      ]);
      for (const cli of [sqlite, sqliteFix])
        expect(cli.stderr).toBe(
          `erp-sync: store_failure: no store at ${file}: nothing has run with this store.path yet, or the path is wrong\n`,
        );
      for (const cli of [postgresAudit, postgresFix])
        expect(cli.stderr).toContain(`no store at ${TEST_POSTGRES_URL} (schema ${location.schema})`);
      const refused = [sqlite, sqliteFix, postgresAudit, postgresFix];
      expect(refused.map((cli) => cli.stdout).join('')).toBe('');
      expect(refused.map((cli) => cli.code)).toEqual(refused.map(() => sqliteStatus.code));
      expect(sqliteStatus.code).toBe(1);
      expect(existsSync(dirname(file))).toBe(false);
      expect(() => postgres.open({ mustExist: true }, location)).toThrow(StoreNotFoundError);
    } finally {
      postgres.cleanup();
    }
  }, 90_000);
});
