import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toPlatformOrder } from '../../../src/api/mappers.js';
import { writeConfigFile } from '../../../src/config.js';
import { silentLogger } from '../../../src/logger.js';
import { closeSyncContext, createSyncContext } from '../../../src/sync/context.js';
import { explainOrder, type OrderStory } from '../../../src/diagnostics/explainOrder.js';
import { explainSku, type SkuStory } from '../../../src/diagnostics/explainSku.js';
import { runPrices } from '../../../src/sync/push/prices.js';
import { runStock } from '../../../src/sync/push/stock.js';
import type { SyncContext } from '../../../src/sync/frame/types.js';
import { runCli } from '../../support/cli.js';
import { http } from '../../support/sandboxHttp.js';
import { createPlatformOrder } from '../../support/orderChecks.js';
import { bulkSku, createHarness, type Harness } from '../../support/syncHarness.js';
import { requireErpOrderPart } from '../../../src/erp/erpOrderPart.js';
import { StoreNotFoundError } from '../../../src/store/StoreError.js';
import { missingStores } from '../../support/missingStores.js';
import { TEST_POSTGRES_URL } from '../../support/testStores.js';

const RUN = { full: false, dryRun: false };
let harness: Harness;
let ctx: SyncContext;
let configFile: string;
let env: Record<string, string>;

const item = (story: SkuStory, key: string) => story.items.find((i) => i.key === key)!;

beforeAll(async () => {
  harness = await createHarness({ extraProducts: 6 });
  // The oversell guard on: order 5001 (imported, not yet acknowledged by the ERP) holds 3 of BULK-000001.
  ctx = await createSyncContext(
    {
      ...harness.config,
      orders: {
        ...harness.config.orders,
        oversellGuard: { ...harness.config.orders.oversellGuard, enabled: true },
      },
    },
    silentLogger(),
  );
  ctx.store.orders.seen.setOutcome(5001, 'imported', 'new');
  ctx.store.orders.links.link({
    platformOrderId: 5001,
    erpRef: 'SO-5001',
    number: null,
    status: 'new',
    paymentStatus: 'unpaid',
    platformCreatedAt: null,
    lines: [{ sku: bulkSku(1), quantity: 3 }],
  });
  harness.writeStock([
    { sku: bulkSku(1), quantity: 10 },
    { sku: bulkSku(2), quantity: 20 },
    { sku: bulkSku(3), quantity: 'lots' },
    { sku: 'NOT-ON-PLATFORM', quantity: 5 },
  ]);
  harness.writePrices([1, 2].map((n) => ({ sku: bulkSku(n), price: 10 + n, vat_rate: 19 })));
  expect(await runStock(ctx, RUN)).toMatchObject({ applied: 2, rejected: 1, notFound: 1 });
  expect(await runPrices(ctx, RUN)).toMatchObject({ applied: 2 });
  // A new ERP value not pushed yet.
  harness.writeStock([
    { sku: bulkSku(1), quantity: 10 },
    { sku: bulkSku(2), quantity: 25 },
    { sku: bulkSku(3), quantity: 'lots' },
    { sku: 'NOT-ON-PLATFORM', quantity: 5 },
  ]);
  configFile = harness.configFile();
  // No Redis answers (a refused port): the jobs line says so; test/integration/queue/explainJobs.test.ts has the jobs.
  env = {
    CMS_BASE_URL: harness.sandbox.url,
    CMS_API_KEY: harness.sandbox.keys.primary,
    REDIS_URL: 'redis://127.0.0.1:9',
  };
});

afterAll(async () => {
  await closeSyncContext(ctx);
  await harness.close();
});

describe('erp-sync explain sku', () => {
  it('in step, held by the guard: names the units, the order holding them and what was pushed', async () => {
    const story = await explainSku(ctx, bulkSku(1));
    expect(story.verdict.state).toBe('in_step');
    expect(story.verdict.text).toMatch(/held by the guard: 3 unit\(s\).*#5001: 3/);
    expect(item(story, bulkSku(1)).stock).toMatchObject({
      erp: { value: 10, source: expect.stringMatching(/stock\.csv:2$/) },
      held: 3,
      holdingOrders: [{ orderId: 5001, units: 3 }],
      buffer: 0,
      wouldPush: 7,
      acknowledged: { value: 'q=7', refused: false, byRun: expect.any(Number) },
      platform: 7,
    });
    expect(story.runs.map((r) => r.pipeline)).toEqual(['stock', 'prices']);
  });

  it('in step without a guard, and pending when the ERP value changed since the last push', async () => {
    const story = await explainSku(ctx, bulkSku(2));
    expect(item(story, bulkSku(2)).prices.verdict.state).toBe('in_step');
    expect(story.verdict).toMatchObject({
      state: 'pending',
      text: expect.stringMatching(/will be pushed at the next run: a stock run is due/),
    });
    expect(item(story, bulkSku(2)).stock).toMatchObject({
      wouldPush: 25,
      acknowledged: { value: 'q=20' },
      platform: 20,
    });
  });

  it('rejected: blocked, with the reason and the file:line of the ERP row', async () => {
    const story = await explainSku(ctx, bulkSku(3));
    expect(story.verdict.state).toBe('blocked');
    expect(story.verdict.text).toMatch(/the ERP row is rejected: .*stock\.csv:4/);
    expect(item(story, bulkSku(3)).rejects[0]).toMatchObject({
      pipeline: 'stock',
      reason: expect.stringMatching(/stock\.csv:4/),
    });
  });

  it('not on the platform: blocked, says to create it there', async () => {
    const story = await explainSku(ctx, 'NOT-ON-PLATFORM');
    expect(story).toMatchObject({ platform: { read: true, found: false }, verdict: { state: 'blocked' } });
    expect(story.verdict.text).toMatch(/not on the platform/);
  });

  it('a SKU the ERP does not have, on the platform or nowhere', async () => {
    expect((await explainSku(ctx, bulkSku(5))).verdict).toMatchObject({
      state: 'not_in_erp',
      text: expect.stringMatching(/is not in the ERP/),
    });
    expect((await explainSku(ctx, 'GHOST-1')).verdict.text).toMatch(/neither in the ERP nor on the platform/);
  });

  it('CLI: text and exit 0 in step, exit 1 pending, and exit 2 with the store part when the platform is unreachable', async () => {
    const ok = await runCli(['explain', 'sku', bulkSku(1), '--config', configFile], env);
    expect(ok.stdout).toMatch(/^BULK-000001\nverdict: BULK-000001: in step, held by the guard/);
    expect(ok.stdout).toMatch(/held back: +3 by the oversell guard by #5001 \(3\); safety buffer 0/);
    expect(ok.code).toBe(0);
    const pending = await runCli(['explain', 'sku', bulkSku(2), '--config', configFile, '--json'], env);
    expect((JSON.parse(pending.stdout) as SkuStory).verdict.state).toBe('pending');
    expect(pending.code).toBe(1);
    const downConfig = writeConfigFile(join(harness.dir, 'down.yaml'), {
      api: { baseUrl: 'http://127.0.0.1:9', retries: 0, timeoutMs: 2000 },
      erp: { type: 'file', path: harness.dir, stableMs: 0 },
      store: { path: join(harness.dir, 'erp-sync.db') },
      log: { level: 'silent' },
    });
    const down = await runCli(['explain', 'sku', bulkSku(2), '--config', downConfig], {
      CMS_API_KEY: harness.sandbox.keys.primary,
    });
    expect(down.stdout).toMatch(/platform: could not be read/);
    expect(down.stdout).toMatch(/acknowledged: +q=20 at /);
    expect(down.code).toBe(2);
    expect(down.stdout + down.stderr).not.toContain(harness.sandbox.keys.primary);
  }, 90_000);
});

describe('erp-sync explain on a store that does not exist', () => {
  it('refuses it as status does (no store at ...), and creates no file and no schema', async () => {
    const { file, location, sqliteConfig, postgresConfig, postgres } = missingStores(harness.dir);
    try {
      const [sqliteSku, postgresOrder, sqliteStatus] = await Promise.all([
        runCli(['explain', 'sku', bulkSku(1), '--config', sqliteConfig], env),
        runCli(['explain', 'order', '5001', '--config', postgresConfig], env),
        runCli(['status', '--config', sqliteConfig], env),
      ]);
      expect(sqliteSku.stderr).toContain(`no store at ${file}`);
      expect(postgresOrder.stderr).toContain(`no store at ${TEST_POSTGRES_URL} (schema ${location.schema})`);
      expect(sqliteSku.stdout + postgresOrder.stdout).toBe('');
      expect([sqliteSku.code, postgresOrder.code]).toEqual([sqliteStatus.code, sqliteStatus.code]);
      expect(sqliteStatus.code).not.toBe(0);
      expect(existsSync(file)).toBe(false);
      expect(existsSync(dirname(file))).toBe(false);
      expect(() => postgres.open({ mustExist: true }, location)).toThrow(StoreNotFoundError);
    } finally {
      postgres.cleanup();
    }
  }, 90_000);
});

describe('erp-sync explain sku, in flight', () => {
  it('says when a push went out and its answer was never recorded (sent again next run)', async () => {
    const [fingerprint] = ctx.store.fingerprints.getMany('prices', [bulkSku(1)]).values();
    ctx.store.fingerprints.markInFlight('prices', ctx.store.generations.next('prices'), [
      [bulkSku(1), `~${fingerprint!.hash}`],
    ]);
    const story = await explainSku(ctx, bulkSku(1));
    expect(item(story, bulkSku(1)).prices).toMatchObject({
      acknowledged: { inFlight: true, at: null },
      verdict: { state: 'in_step', text: expect.stringMatching(/answer was never recorded/) },
    });
  });
});

type PlatformApiOrder = Awaited<ReturnType<typeof createPlatformOrder>>;

/** The platform order imported into the ERP (the file adapter's outbox) and linked, as an orders run does. */
async function importAndLink(order: PlatformApiOrder): Promise<string> {
  const { erpRef } = await requireErpOrderPart(ctx.erp, 'import').importOrder(
    toPlatformOrder(await ctx.client.orders.get(order.id)),
  );
  linkOrder(order, erpRef);
  return erpRef;
}

/** A platform order linked in the store as imported with `erpRef`, as the orders run leaves it. */
function linkOrder(order: PlatformApiOrder, erpRef: string): void {
  ctx.store.orders.links.link({
    platformOrderId: order.id,
    erpRef,
    number: null,
    status: order.status,
    paymentStatus: order.payment_status,
    platformCreatedAt: null,
    lines: [],
  });
}

describe('erp-sync explain order', () => {
  it('in step, pending import, parked, refused event, and an id the platform does not know', async () => {
    const linked = await createPlatformOrder(ctx.client, bulkSku(6));
    await importAndLink(linked);
    const inStep = await explainOrder(ctx, linked.id);
    expect(inStep.verdict).toMatchObject({
      state: 'in_step',
      text: expect.stringMatching(new RegExp(`in the ERP as ${linked.id}\\.json since .*; found there: /`)),
    });
    expect(inStep.platform).toMatchObject({ found: true, status: 'new' });
    // Found where the import wrote it: the outbox file, with its time and size.
    expect(inStep.erpNow).toMatchObject({
      asked: true,
      read: true,
      found: true,
      location: {
        erpRef: `${linked.id}.json`,
        place: join(harness.dir, 'outbox', 'orders', `${linked.id}.json`),
        at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) as string,
        facts: { bytes: expect.any(Number) as number, movedTo: null },
      },
    });

    const fresh = await createPlatformOrder(ctx.client, bulkSku(6));
    expect((await explainOrder(ctx, fresh.id)).verdict).toMatchObject({
      state: 'pending',
      text: expect.stringMatching(/imported into the ERP at the next orders run/),
    });

    const parked = await createPlatformOrder(ctx.client, bulkSku(6));
    ctx.store.orders.parked.park({
      platformOrderId: parked.id,
      number: null,
      code: 'erp_rejected',
      reason: 'customer blocked in the ERP',
    });
    const parkedStory = await explainOrder(ctx, parked.id);
    expect(parkedStory.verdict).toMatchObject({
      state: 'blocked',
      text: expect.stringMatching(/parked: customer blocked in the ERP \(attempt 1, next retry /),
    });

    ctx.store.orders.events.record({
      eventId: 'awb-1',
      platformOrderId: linked.id,
      kind: 'awb',
      outcome: 'rejected',
      detail: 'unknown courier "zz"',
    });
    const refused = await explainOrder(ctx, linked.id);
    expect(refused.verdict).toMatchObject({
      state: 'blocked',
      text: expect.stringMatching(/1 ERP event\(s\) refused: awb awb-1: unknown courier/),
    });
    expect(refused.events).toEqual([expect.objectContaining({ eventId: 'awb-1', outcome: 'rejected' })]);

    const json = await runCli(['explain', 'order', String(linked.id), '--config', configFile, '--json'], env);
    expect((JSON.parse(json.stdout) as OrderStory).erpNow.location).toMatchObject({
      erpRef: `${linked.id}.json`,
    });
    expect(json.code).toBe(1);

    const cli = await runCli(['explain', 'order', '987654', '--config', configFile], env);
    expect(cli.stdout).toMatch(/the platform does not know order 987654/);
    expect(cli.code).toBe(1);
    const usage = await runCli(['explain', 'order', 'abc', '--config', configFile], env);
    expect(usage.code).toBe(64);
  });

  it('imported but missing from the ERP: blocked, saying the store has a link the ERP does not back', async () => {
    const lost = await createPlatformOrder(ctx.client, bulkSku(6));
    linkOrder(lost, 'SO-LOST');
    const story = await explainOrder(ctx, lost.id);
    expect(story.erpNow).toEqual({ asked: true, read: true, found: false });
    expect(story.verdict).toMatchObject({
      state: 'blocked',
      text: expect.stringMatching(/imported as SO-LOST at .*, but the ERP has no such order/),
    });
    const cli = await runCli(['explain', 'order', String(lost.id), '--config', configFile], env);
    expect(cli.stdout).toMatch(/\nERP now: +not in the ERP\n/);
    expect(cli.code).toBe(1);
  });

  it('ERP unreachable: the store and platform parts still show, the ERP part says why, exit 2', async () => {
    const order = await createPlatformOrder(ctx.client, bulkSku(6));
    const erpRef = await importAndLink(order);
    const missing = join(harness.dir, 'unmounted-erp');
    const erpDown = writeConfigFile(join(harness.dir, 'erp-down.yaml'), {
      erp: { type: 'file', path: missing, stableMs: 0 },
      store: { path: join(harness.dir, 'erp-sync.db') },
      log: { level: 'silent' },
    });
    const cli = await runCli(['explain', 'order', String(order.id), '--config', erpDown], env);
    expect(cli.stdout).toMatch(
      new RegExp(
        `verdict: the ERP could not be read \\(.*${missing}.*\\); the store says in the ERP as ${erpRef} since`,
      ),
    );
    expect(cli.stdout).toMatch(/\nplatform: \S+, new\/unpaid, created /);
    expect(cli.stdout).toMatch(new RegExp(`\\nERP: +${erpRef}, imported `));
    expect(cli.stdout).toMatch(/\nERP now: +could not be read: .*drop folder .* cannot be read/);
    expect(cli.code).toBe(2);
  });

  it('ERP unreachable and no link: unknown whether the ERP has it, never "will be imported", exit 2', async () => {
    const order = await createPlatformOrder(ctx.client, bulkSku(6));
    const missing = join(harness.dir, 'unmounted-erp-2');
    const erpDown = writeConfigFile(join(harness.dir, 'erp-down-2.yaml'), {
      erp: { type: 'file', path: missing, stableMs: 0 },
      store: { path: join(harness.dir, 'erp-sync.db') },
      log: { level: 'silent' },
    });
    const cli = await runCli(['explain', 'order', String(order.id), '--config', erpDown, '--json'], env);
    const story = JSON.parse(cli.stdout) as OrderStory;
    expect(story.erp.reference).toBeNull();
    expect(story.erpNow).toMatchObject({ asked: true, read: false });
    expect(story.verdict.state).toBe('unknown');
    expect(story.verdict.text).toMatch(
      new RegExp(
        `^the ERP could not be read \\(.*${missing}.*\\), and the store has no link: unknown whether the ERP already has it; check that the ERP can be reached \\(\`erp-sync check\`\\)`,
      ),
    );
    expect(story.verdict.text).not.toMatch(/will be imported/);
    expect(cli.code).toBe(2);
  });
});

describe('erp-sync explain sku: what the ERP does not export is not a problem', () => {
  it('a variable product whose variants are in step is in step (exit 0): the parent has no stock of its own, each variant is shown', async () => {
    // A variable product with three variants (the sandbox takes them on create; the spec has no other way).
    const sku = 'TEE-1';
    const variants = ['TEE-1-S', 'TEE-1-M', 'TEE-1-L'];
    const created = await http(harness.sandbox).post('/products', {
      name: 'Tee',
      sku,
      type: 'variable',
      status: 'active',
      price: 50,
      variants: variants.map((variant) => ({ sku: variant, name: variant, price: 1, stock_quantity: 0 })),
    });
    expect(created.status).toBe(201);
    const stockRows = [
      { sku: bulkSku(1), quantity: 10 },
      { sku: bulkSku(2), quantity: 25 },
      { sku: bulkSku(3), quantity: 'lots' },
      { sku: 'NOT-ON-PLATFORM', quantity: 5 },
      ...variants.map((variant, i) => ({ sku, variant_sku: variant, quantity: 30 + i })),
    ];
    harness.writeStock(stockRows);
    harness.writePrices([
      ...[1, 2].map((n) => ({ sku: bulkSku(n), price: 10 + n, vat_rate: 19 })),
      ...variants.map((variant, i) => ({ sku, variant_sku: variant, price: 50 + i })),
    ]);
    expect((await runStock(ctx, RUN)).error).toBeUndefined();
    expect((await runPrices(ctx, RUN)).error).toBeUndefined();

    const story = await explainSku(ctx, sku);
    expect(story.verdict).toMatchObject({ state: 'in_step', text: expect.stringMatching(/^in step/) });
    expect(item(story, sku).stock.verdict).toMatchObject({
      state: 'not_pushed',
      text: expect.stringMatching(/no stock of its own: a variable product/),
    });
    for (const [i, variant] of variants.entries()) {
      const line = item(story, `${sku}/${variant}`);
      expect(line.stock).toMatchObject({
        wouldPush: 30 + i,
        platform: 30 + i,
        verdict: { state: 'in_step' },
      });
      expect(line.prices.verdict.state).toBe('in_step');
    }
    const cli = await runCli(['explain', 'sku', sku, '--config', configFile], env);
    expect(cli.stdout).toMatch(new RegExp(`^${sku}\\nverdict: in step`));
    for (const variant of variants) expect(cli.stdout).toContain(`\n${sku}/${variant}\n  stock: in step`);
    expect(cli.stdout).not.toMatch(/not in the ERP's stock/);
    expect(cli.code).toBe(0);
  }, 90_000);

  it('a SKU the ERP exports stock for but no prices row: in step, prices not pushed and said to be normal (exit 0)', async () => {
    harness.writeStock([{ sku: bulkSku(4), quantity: 40 }]);
    harness.writePrices([]);
    expect((await runStock(ctx, RUN)).error).toBeUndefined();
    const story = await explainSku(ctx, bulkSku(4));
    expect(item(story, bulkSku(4)).stock.verdict.state).toBe('in_step');
    expect(item(story, bulkSku(4)).prices.verdict).toMatchObject({
      state: 'not_pushed',
      text: expect.stringMatching(/the ERP exports only stock for it.*not a problem/),
    });
    expect(story.verdict).toMatchObject({
      state: 'in_step',
      text: `in step; not pushed, as the ERP exports it: ${bulkSku(4)} prices`,
    });
    const cli = await runCli(['explain', 'sku', bulkSku(4), '--config', configFile], env);
    expect(cli.code).toBe(0);
    expect(cli.stdout).not.toMatch(/not in the ERP's prices/);
  }, 90_000);
});
