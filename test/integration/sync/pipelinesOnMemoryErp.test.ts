import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiClient, type ApiClient } from '../../../src/api/createApiClient.js';
import type { ErpAdapter } from '../../../src/erp/ErpAdapter.js';
import { parseConfig, type Config } from '../../../src/config.js';
import { silentLogger } from '../../../src/logger.js';
import { startSandbox } from '../../../src/sandbox/index.js';
import type { Store } from '../../../src/store/index.js';
import { ERP_ORDERS_CHECKPOINT } from '../../../src/sync/orders/erpOrders.js';
import { FEEDBACK_CHECKPOINT } from '../../../src/sync/orders/feedback.js';
import { FAILURES_IN_A_ROW } from '../../../src/sync/frame/failureStreak.js';
import { runPipeline } from '../../../src/sync/runPipeline.js';
import type { SyncContext } from '../../../src/sync/frame/types.js';
import { MemoryErp, MemoryErpAdapter, type MemoryErpAdapterOptions } from '../../support/MemoryErpAdapter.js';
import { STORE_KINDS, TestStores, type StoreKind } from '../../support/testStores.js';

// The pipelines against a second implementation of the port (the in-memory ERP), over the real
// sandbox and a real store: what they do must not depend on the file adapter.

const RUN = { full: false, dryRun: false };
const bulkSku = (n: number): string => `BULK-${String(n).padStart(6, '0')}`;

interface World {
  sandbox: Awaited<ReturnType<typeof startSandbox>>;
  /** The test's own client (creating orders, looking at the platform). */
  api: ApiClient;
  erp: MemoryErp;
  store: Store;
  /** A context with a fresh adapter instance over the one MemoryErp (what a new process builds). */
  context(adapter?: MemoryErpAdapterOptions): Promise<SyncContext>;
  close(): Promise<void>;
}

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

async function startWorld(
  kind: StoreKind,
  options: { seed: 'demo' | 'empty'; extraProducts?: number },
): Promise<World> {
  const sandbox = await startSandbox({
    port: 0,
    seed: options.seed,
    extraProducts: options.extraProducts ?? 0,
    recordBodies: true,
  });
  const dir = await mkdtemp(join(tmpdir(), 'memory-erp-'));
  const stores = new TestStores(kind);
  const config: Config = parseConfig({
    api: { baseUrl: sandbox.url, apiKey: sandbox.keys.primary, retries: 2, timeoutMs: 10_000 },
    // The configuration needs an erp section; the pipelines never read it (architecture test).
    erp: { type: 'file', path: join(dir, 'not-used') },
    store: stores.location(),
    sync: { batchSize: 100 },
    orders: { oversellGuard: { enabled: false } },
    log: { level: 'silent' },
  });
  const erp = new MemoryErp();
  const store = stores.open({}, config.store);
  const api = createApiClient({ baseUrl: sandbox.url, apiKey: sandbox.keys.primary, retries: 0 });
  const clients: ApiClient[] = [api];
  return {
    sandbox,
    api,
    erp,
    store,
    async context(adapterOptions = {}) {
      const client = createApiClient({
        baseUrl: config.api.baseUrl,
        apiKey: config.api.apiKey,
        retries: config.api.retries,
        timeoutMs: config.api.timeoutMs,
      });
      clients.push(client);
      const adapter = new MemoryErpAdapter(erp, adapterOptions);
      await adapter.open();
      return { client, erp: adapter, store, config, logger: silentLogger() };
    },
    async close() {
      try {
        for (const client of clients) await client.close();
      } finally {
        stores.cleanup();
        await sandbox.close();
        await rm(dir, { recursive: true, force: true });
      }
    },
  };
}

async function platformStock(api: ApiClient): Promise<Map<string, number | null | undefined>> {
  const out = new Map<string, number | null | undefined>();
  for await (const product of api.products.iterate()) out.set(product.sku, product.stock_quantity);
  return out;
}

const openRejects = (store: Store, pipeline: string) =>
  store.rejects
    .list({ pipeline })
    .map((r) => r.key)
    .sort();

/** A SKU of an active simple product with stock, for creating orders. */
async function sellableSku(api: ApiClient): Promise<string> {
  for await (const product of api.products.iterate({ status: 'active' })) {
    if (product.type !== 'variable' && product.sku && product.track_stock !== false) {
      await api.products.updateStock(product.id, { quantity: 1000 });
      return product.sku;
    }
  }
  throw new Error('no sellable product in the sandbox seed');
}

// The pipelines' store contract: every test runs on each store.
describe.each(STORE_KINDS)('on the %s store', (kind) => {
  describe('stock over the memory ERP', () => {
    it('pushes the ERP stock, then an unchanged resync sends no write request', async () => {
      world = await startWorld(kind, { seed: 'empty', extraProducts: 150 });
      world.erp.tables.stock = Array.from({ length: 150 }, (_, i) => ({
        sku: bulkSku(i + 1),
        qty: String(i),
      }));
      const first = await runPipeline('stock', await world.context(), RUN);
      expect(first).toMatchObject({ read: 150, applied: 150, rejected: 0 });
      const stock = await platformStock(world.api);
      expect(stock.get(bulkSku(1))).toBe(0);
      expect(stock.get(bulkSku(150))).toBe(149);
      const second = await runPipeline('stock', await world.context(), RUN);
      expect(second).toMatchObject({ read: 150, unchanged: 150, sent: 0, writeRequests: 0 });
      // A snapshot adapter gives no receipt: nothing to commit.
      expect(world.erp.count('commit')).toBe(0);
    });

    it('with delta reads: commits each read, reads only the next drop, and keeps rejects of keys it did not bring', async () => {
      world = await startWorld(kind, { seed: 'empty', extraProducts: 3 });
      const delta = { reads: 'delta' as const };
      world.erp.tables.stock = [
        { sku: bulkSku(1), quantity: '-1' },
        { sku: bulkSku(2), quantity: '5' },
        { sku: 'GONE-1', quantity: '1' },
      ];
      expect(await runPipeline('stock', await world.context(delta), RUN)).toMatchObject({
        read: 3,
        applied: 1,
      });
      expect(openRejects(world.store, 'stock')).toEqual([bulkSku(1), 'GONE-1']);
      // The receipt travelled from the read to commit: the ERP marked the rows consumed.
      expect(world.erp.count('commit')).toBe(1);
      expect(world.erp.consumed.stock).toBe(3);
      // Nothing new: nothing read, no reject closed.
      expect(await runPipeline('stock', await world.context(delta), RUN)).toMatchObject({ read: 0 });
      expect(openRejects(world.store, 'stock')).toEqual([bulkSku(1), 'GONE-1']);
      // A drop with only the first SKU, fixed: only its reject is over.
      world.erp.tables.stock = [{ sku: bulkSku(1), quantity: '1' }];
      world.erp.consumed.stock = 0;
      expect(await runPipeline('stock', await world.context(delta), RUN)).toMatchObject({
        read: 1,
        applied: 1,
      });
      expect(openRejects(world.store, 'stock')).toEqual(['GONE-1']);
    });

    it('with snapshot reads: a key gone from the ERP closes its reject', async () => {
      world = await startWorld(kind, { seed: 'empty', extraProducts: 3 });
      world.erp.tables.stock = [
        { sku: bulkSku(1), quantity: '-1' },
        { sku: 'GONE-1', quantity: '1' },
      ];
      await runPipeline('stock', await world.context(), RUN);
      expect(openRejects(world.store, 'stock')).toEqual([bulkSku(1), 'GONE-1']);
      world.erp.tables.stock = [{ sku: bulkSku(1), quantity: '1' }];
      expect(await runPipeline('stock', await world.context(), RUN)).toMatchObject({ read: 1, applied: 1 });
      expect(openRejects(world.store, 'stock')).toEqual([]);
    });
  });

  describe('ERP-origin orders over the memory ERP', () => {
    async function seedOrders(w: World): Promise<void> {
      const sku = await sellableSku(w.api);
      for (const id of ['MEM-1', 'MEM-2']) {
        w.erp.outgoing.push({
          source_order_id: id,
          customer: { name: `Client ${id}`, email: `${id.toLowerCase()}@example.ro` },
          items: [{ sku, quantity: 1 }],
        });
      }
    }

    async function platformOrdersOf(api: ApiClient, sourceOrderId: string): Promise<number[]> {
      const result = await api.orders.list({ search: sourceOrderId, per_page: 100 });
      return result.data.filter((o) => o.source_order_id === sourceOrderId).map((o) => o.id);
    }

    it('creates each order once, tells the ERP once, and a second run with nothing new makes no recordOutgoingOrder call', async () => {
      world = await startWorld(kind, { seed: 'demo' });
      await seedOrders(world);
      const first = await runPipeline('erp-orders', await world.context(), RUN);
      expect(first).toMatchObject({ read: 2, applied: 2 });
      expect(world.erp.count('recordOutgoingOrder')).toBe(2);
      const [one] = await platformOrdersOf(world.api, 'MEM-1');
      expect(world.erp.recorded.get('MEM-1')).toBe(one);
      // The checkpoint moved over both orders, after they were told.
      expect(world.store.cursors.get(ERP_ORDERS_CHECKPOINT)).toBe('2');

      const second = await runPipeline('erp-orders', await world.context(), RUN);
      expect(second).toMatchObject({ read: 0, sent: 0 });
      expect(world.erp.count('recordOutgoingOrder')).toBe(2);

      // An adapter that yields its orders again (a folder read whole) still tells nobody twice.
      const again = await runPipeline('erp-orders', await world.context({ ignoresCheckpoint: true }), RUN);
      expect(again).toMatchObject({ read: 2, unchanged: 2, sent: 0 });
      expect(world.erp.count('recordOutgoingOrder')).toBe(2);
      expect(await platformOrdersOf(world.api, 'MEM-1')).toHaveLength(1);
      expect(await platformOrdersOf(world.api, 'MEM-2')).toHaveLength(1);
    });

    it('fails the run when the platform does not answer the creates, and creates each order once when it does', async () => {
      world = await startWorld(kind, { seed: 'demo' });
      await seedOrders(world);
      world.sandbox.setFaults('error_rate=1,only=POST /orders');
      const failed = await runPipeline('erp-orders', await world.context(), RUN);
      expect(failed).toMatchObject({ applied: 0, failed: 2 });
      // A 5xx to a POST, after the client's retries: a server error, or an outcome the client cannot know.
      expect(['api_server', 'api_outcome_unknown']).toContain(failed.error?.code);
      expect(failed.error?.message).toMatch(
        /^2 order\(s\) not created on the platform, tried again next run: /,
      );
      expect(world.store.cursors.get(ERP_ORDERS_CHECKPOINT)).toBeNull();

      world.sandbox.setFaults(null);
      const healed = await runPipeline('erp-orders', await world.context(), RUN);
      expect(healed.error).toBeUndefined();
      expect(await platformOrdersOf(world.api, 'MEM-1')).toHaveLength(1);
      expect(await platformOrdersOf(world.api, 'MEM-2')).toHaveLength(1);
    });

    it('tells the ERP on the next run when telling failed, without creating the order again', async () => {
      world = await startWorld(kind, { seed: 'demo' });
      await seedOrders(world);
      world.erp.failNext.set('recordOutgoingOrder', 1);
      const failed = await runPipeline('erp-orders', await world.context(), RUN);
      expect(failed.error).toMatchObject({ code: 'erp_unavailable', kind: 'retryable' });
      expect(world.erp.recorded.size).toBe(0);
      // The order exists on the platform; the checkpoint stays before it.
      expect(await platformOrdersOf(world.api, 'MEM-1')).toHaveLength(1);
      expect(world.store.cursors.get(ERP_ORDERS_CHECKPOINT)).toBeNull();

      world.sandbox.requestLog.clear();
      const healed = await runPipeline('erp-orders', await world.context(), RUN);
      expect(healed.error).toBeUndefined();
      expect([...world.erp.recorded.keys()].sort()).toEqual(['MEM-1', 'MEM-2']);
      const posts = world.sandbox.requestLog
        .entries()
        .filter((e) => e.method === 'POST' && e.path.startsWith('/api/v2/orders'));
      expect(posts.length).toBe(1); // MEM-2 only: MEM-1 was created before, and only told now
      expect(await platformOrdersOf(world.api, 'MEM-1')).toHaveLength(1);
      expect(world.store.cursors.get(ERP_ORDERS_CHECKPOINT)).toBe('2');
    });
  });

  describe('orders and feedback over the memory ERP', () => {
    async function placeOrders(w: World, n: number): Promise<number[]> {
      const sku = await sellableSku(w.api);
      const ids: number[] = [];
      for (let i = 0; i < n; i++) {
        const order = await w.api.orders.create({
          customer: { name: `Client ${i}`, email: `client${i}@example.ro` },
          items: [{ sku, quantity: 1 }],
        });
        ids.push(order.id);
      }
      return ids;
    }

    it('fails the run when the ERP goes down mid-import, stops asking it after 3 failures in a row, and imports the rest next run', async () => {
      world = await startWorld(kind, { seed: 'demo' });
      const before = await placeOrders(world, 2);
      // The seed's own orders and these two: in.
      expect((await runPipeline('orders', await world.context(), RUN)).error).toBeUndefined();
      const orders = await placeOrders(world, 12);
      const ctx = await world.context();
      world.erp.down = true;
      const calls = world.erp.count('importOrder');
      const failed = await runPipeline('orders', ctx, RUN);
      const asked = world.erp.count('importOrder') - calls;
      // 3 in a row, plus what was already in flight beside them (orders.concurrency 4): not 12.
      expect(asked).toBeGreaterThanOrEqual(FAILURES_IN_A_ROW);
      expect(asked).toBeLessThanOrEqual(FAILURES_IN_A_ROW + 3);
      expect(failed).toMatchObject({ applied: 0, failed: 12, extra: { notTried: 12 - asked } });
      expect(failed.error).toMatchObject({ code: 'erp_unavailable', kind: 'retryable' });
      expect(failed.error?.message).toMatch(
        /^12 of 12 order\(s\) not imported, tried again next run; the import stopped after 3 failures in a row: the memory ERP is down/,
      );
      expect(orders.some((id) => world!.erp.imported.has(id))).toBe(false);

      world.erp.down = false;
      const healed = await runPipeline('orders', await world.context(), RUN);
      expect(healed.error).toBeUndefined();
      expect(healed.applied).toBe(12);
      for (const id of [...before, ...orders]) expect(world.erp.imported.has(id)).toBe(true);
    });

    it('fails the run for one order the ERP could not take, while every other order goes in', async () => {
      world = await startWorld(kind, { seed: 'demo' });
      expect((await runPipeline('orders', await world.context(), RUN)).error).toBeUndefined();
      const orders = await placeOrders(world, 6);
      world.erp.failNext.set('importOrder', 1);
      const summary = await runPipeline('orders', await world.context(), RUN);
      expect(summary).toMatchObject({ applied: 5, failed: 1 });
      expect(summary.extra.notTried).toBeUndefined();
      expect(summary.error?.message).toMatch(/^1 of 6 order\(s\) not imported, tried again next run: /);
      const again = await runPipeline('orders', await world.context(), RUN);
      expect(again).toMatchObject({ applied: 1, failed: 0 });
      expect(again.error).toBeUndefined();
      for (const id of orders) expect(world.erp.imported.has(id)).toBe(true);
    });

    it('parks an order the ERP refuses and imports it once the cause is fixed', async () => {
      world = await startWorld(kind, { seed: 'demo' });
      const sku = await sellableSku(world.api);
      const order = await world.api.orders.create({
        customer: { name: 'Client', email: 'client@example.ro' },
        items: [{ sku, quantity: 1 }],
      });
      world.erp.refusedSkus.add(sku);
      const first = await runPipeline('orders', await world.context(), RUN);
      // The run's summary names what happened instead, should this ever fail (seen once in CI).
      const seen = `order ${order.id}, run ${JSON.stringify(first)}`;
      expect(world.erp.imported.has(order.id), seen).toBe(false);
      const parked = world.store.orders.parked.get(order.id);
      expect(parked, seen).toBeDefined();
      expect(parked?.reason, seen).toMatch(/unknown SKU in the ERP/);

      world.erp.refusedSkus.clear();
      world.store.orders.parked.makeDue([order.id]);
      await runPipeline('orders', await world.context(), RUN);
      expect(world.erp.imported.has(order.id)).toBe(true);
      expect(world.store.orders.parked.get(order.id)).toBeUndefined();
    });

    it('applies ERP events from the stored checkpoint, once', async () => {
      world = await startWorld(kind, { seed: 'demo' });
      const sku = await sellableSku(world.api);
      const order = await world.api.orders.create({
        customer: { name: 'Client', email: 'client@example.ro' },
        items: [{ sku, quantity: 1 }],
      });
      await runPipeline('orders', await world.context(), RUN);
      expect(world.erp.imported.has(order.id)).toBe(true);
      world.erp.events.push({ order_id: order.id, event: 'confirmed', note: 'checked' });
      const first = await runPipeline('feedback', await world.context(), RUN);
      expect(first).toMatchObject({ read: 1, applied: 1 });
      expect((await world.api.orders.get(order.id)).status).toBe('confirmed');
      expect(world.store.cursors.get(FEEDBACK_CHECKPOINT)).toBe('1');
      const second = await runPipeline('feedback', await world.context(), RUN);
      expect(second).toMatchObject({ read: 0, applied: 0 });
    });
  });

  describe('an ERP that does no orders', () => {
    /** The memory adapter's records alone, as a stock-only adapter would be: no order method at all. */
    function recordsOnly(full: ErpAdapter): ErpAdapter {
      return {
        kind: 'records-only',
        capabilities: { ...full.capabilities, orders: { import: false, events: false, outgoing: false } },
        open: () => full.open(),
        stock: (after) => full.stock(after),
        prices: (after) => full.prices(after),
        products: (after) => full.products(after),
        commit: (receipt) => full.commit(receipt),
        check: () => full.check(),
        close: () => full.close(),
      };
    }

    it('says so through its capabilities: orders, feedback and erp-orders ask it nothing and succeed with nothing read', async () => {
      world = await startWorld(kind, { seed: 'demo' });
      const sku = await sellableSku(world.api);
      const order = await world.api.orders.create({
        customer: { name: 'Client', email: 'client@example.ro' },
        items: [{ sku, quantity: 1 }],
      });
      world.erp.events.push({ order_id: order.id, event: 'confirmed', note: 'checked' });
      world.erp.outgoing.push({
        source_order_id: 'MEM-9',
        customer: { name: 'Client 9', email: 'mem-9@example.ro' },
        items: [{ sku, quantity: 1 }],
      });
      const ctx = await world.context();
      for (const pipeline of ['orders', 'feedback', 'erp-orders'] as const) {
        const summary = await runPipeline(pipeline, { ...ctx, erp: recordsOnly(ctx.erp) }, RUN);
        expect({ pipeline, error: summary.error, read: summary.read }).toEqual({
          pipeline,
          error: undefined,
          read: 0,
        });
      }
      for (const method of ['importOrder', 'orderEvents', 'outgoingOrders'])
        expect({ method, calls: world.erp.count(method) }).toEqual({ method, calls: 0 });
      expect(world.erp.imported.has(order.id)).toBe(false);

      // The same ERP with its order parts: each pipeline reads what was waiting.
      expect((await runPipeline('orders', await world.context(), RUN)).error).toBeUndefined();
      expect(world.erp.imported.has(order.id)).toBe(true);
      expect(await runPipeline('feedback', await world.context(), RUN)).toMatchObject({ read: 1 });
      expect(await runPipeline('erp-orders', await world.context(), RUN)).toMatchObject({ read: 1 });
    });
  });
});
