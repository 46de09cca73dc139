import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stagingSchema } from '../../../src/erp/sql/stagingTables.js';
import { orderRepositoriesOf } from '../../../src/store/createOrderRepositories.js';
import { runFeedback } from '../../../src/sync/orders/feedback.js';
import { runOrders } from '../../../src/sync/orders/orders.js';
import type { SyncContext } from '../../../src/sync/frame/types.js';
import { startGateProxy, type GateProxy } from '../../support/gateProxy.js';
import { createTestDatabase, type TestDatabase } from '../../support/sqlDatabases.js';
import { createPlatformOrder, sellableSku } from '../../support/orderChecks.js';
import { startOrderWorld, type OrderWorld } from '../../support/orderWorld.js';

/*
 * No echo, whatever the interleaving of the orders poll and feedback (docs/orders.md). The ERP
 * ships order X, still `new` on the sandbox (which refuses new -> shipped), so feedback walks it
 * new -> confirmed -> processing -> shipped while the orders poll reads the order list. A proxy in
 * front of the sandbox holds one request or answer, so each interleaving happens every time. The
 * ERP must receive no update for X: neither the states feedback walked through on its behalf nor
 * its own `shipped`. Run with the file adapter (outbox/updates) and the SQL adapter (staging rows).
 */

const RUN = { full: false, dryRun: false };

interface Flavour {
  name: string;
  config(dir: string): Promise<Record<string, unknown>>;
  writeShipped(world: OrderWorld, orderId: number): Promise<void>;
  /** Updates delivered to the ERP for the order, as `previous -> status`. */
  updates(world: OrderWorld, orderId: number): Promise<string[]>;
}

let database: TestDatabase | undefined;
let world: OrderWorld | undefined;
let proxy: GateProxy | undefined;
afterEach(async () => {
  await proxy?.close();
  await world?.close();
  await database?.drop();
  proxy = undefined;
  world = undefined;
  database = undefined;
});

const fileFlavour: Flavour = {
  name: 'file adapter',
  config: async () => ({}),
  async writeShipped(w, orderId) {
    await writeFile(
      join(w.config.erp.type === 'file' ? w.config.erp.path : '', 'events.csv'),
      ['order_id,event,note', `${orderId},shipped,left the warehouse`].join('\n'),
    );
  },
  async updates(w, orderId) {
    const dir = join(w.config.erp.type === 'file' ? w.config.erp.path : '', 'outbox', 'updates');
    const names = await readdir(dir).catch(() => [] as string[]);
    return names.filter((n) => n.startsWith(`${orderId}-`));
  },
};

const sqlFlavour: Flavour = {
  name: 'SQL adapter (staging tables)',
  async config() {
    database = await createTestDatabase('sqlite');
    const erp = database.erpConfig({
      queries: {
        events:
          'select checkpoint, event_id, order_id, event, note from erp_events where checkpoint > :after order by checkpoint',
      },
    });
    await stagingSchema(database.db, erp.staging);
    await database.db.schema.createTable('erp_events', (t) => {
      t.integer('checkpoint').primary();
      t.string('event_id');
      t.integer('order_id');
      t.string('event');
      t.string('note');
    });
    return { erp: { type: 'sql', client: 'sqlite', connection: database.connection, queries: erp.queries } };
  },
  async writeShipped(_w, orderId) {
    await database!.db('erp_events').insert({
      checkpoint: 1,
      event_id: 'E1',
      order_id: orderId,
      event: 'shipped',
      note: 'left the warehouse',
    });
  },
  async updates(_w, orderId) {
    const rows: { previous_status: string | null; status: string | null }[] = await database!
      .db('erp_sync_order_changes')
      .where('platform_order_id', orderId);
    return rows.map((r) => `${r.previous_status} -> ${r.status}`);
  },
};

/** A world whose order X is imported (`new` in the ERP) and whose ERP reports it shipped. */
async function shippedByErp(flavour: Flavour): Promise<{ orderId: number; direct: SyncContext }> {
  const dir = 'unused';
  const erp = await flavour.config(dir);
  world = await startOrderWorld({ seed: 'demo', config: erp });
  const sku = await sellableSku(world.api);
  const order = await createPlatformOrder(world.api, sku);
  const direct = await world.context();
  const imported = await runOrders(direct, RUN);
  expect(imported.error).toBeUndefined();
  expect(orderRepositoriesOf(direct.store).links.get(order.id)?.status).toBe('new');
  await flavour.writeShipped(world, order.id);
  proxy = await startGateProxy(world.sandbox.url);
  return { orderId: order.id, direct };
}

/** A context whose API calls go through the gate proxy. */
function throughProxy(): Promise<SyncContext> {
  return world!.context({
    api: { baseUrl: proxy!.url, apiKey: world!.sandbox.keys.primary, timeoutMs: 20_000, retries: 0 },
  });
}

const isList = (method: string, path: string) => method === 'GET' && path === '/orders';

for (const flavour of [fileFlavour, sqlFlavour]) {
  describe(`echo guard with the ${flavour.name}`, () => {
    it('delivers nothing when the order list was read before feedback walked the order to shipped and answered after', async () => {
      const { orderId, direct } = await shippedByErp(flavour);
      const held = proxy!.gate(isList, 'answer');
      const poll = runOrders(await throughProxy(), RUN);
      await held.reached; // the list says `new`, the answer is held
      const feedback = await runFeedback(direct, RUN);
      expect(feedback.error).toBeUndefined();
      expect(feedback.extra.walked).toBe(1);
      expect((await world!.api.orders.get(orderId)).status).toBe('shipped');
      held.release();
      const polled = await poll;
      expect(polled.error).toBeUndefined();
      expect(await flavour.updates(world!, orderId)).toEqual([]);

      // The next poll reads `shipped`: what the ERP said itself, so nothing either.
      const next = await runOrders(await world!.context(), RUN);
      expect(next.error).toBeUndefined();
      expect(await flavour.updates(world!, orderId)).toEqual([]);
      expect(orderRepositoriesOf(direct.store).links.get(orderId)).toMatchObject({
        status: 'shipped',
        erpIntent: null,
        pendingChange: null,
      });
    });

    it('delivers nothing when the order list is read mid-walk, and nothing after the walk ends', async () => {
      const { orderId } = await shippedByErp(flavour);
      // Feedback's last step (processing -> shipped) is held before it reaches the sandbox.
      const lastStep = proxy!.gate(
        (method, path) =>
          method === 'PATCH' &&
          path === `/orders/${orderId}` &&
          proxy!.requests.filter((r) => r.startsWith('PATCH')).length >= 4,
        'request',
      );
      const feedback = runFeedback(await throughProxy(), RUN);
      await lastStep.reached;
      expect((await world!.api.orders.get(orderId)).status).toBe('processing');

      // The orders poll reads `processing`, a state erp-sync walked through on the ERP's behalf.
      const midWalk = await runOrders(await world!.context(), RUN);
      expect(midWalk.error).toBeUndefined();
      expect(await flavour.updates(world!, orderId)).toEqual([]);

      lastStep.release();
      const fed = await feedback;
      expect(fed.error).toBeUndefined();
      expect(fed.applied).toBe(1);
      const after = await runOrders(await world!.context(), RUN);
      expect(after.error).toBeUndefined();
      expect(await flavour.updates(world!, orderId)).toEqual([]);
    });
  });
}

describe('echo guard: what is still delivered', () => {
  it('delivers a cancellation made on the platform while the ERP walks the order', async () => {
    const { orderId, direct } = await shippedByErp(fileFlavour);
    // The walk's last step is held at processing; the merchant cancels the order meanwhile.
    const lastStep = proxy!.gate(
      (method, path) =>
        method === 'PATCH' &&
        path === `/orders/${orderId}` &&
        proxy!.requests.filter((r) => r.startsWith('PATCH')).length >= 4,
      'request',
    );
    const feedback = runFeedback(await throughProxy(), RUN);
    await lastStep.reached;
    await world!.api.orders.update(orderId, { status: 'cancelled' });
    const polled = await runOrders(direct, RUN);
    expect(polled.error).toBeUndefined();
    expect(await fileFlavour.updates(world!, orderId)).toEqual([`${orderId}-1.json`]);
    lastStep.release();
    const fed = await feedback;
    expect(fed.rejected).toBe(1); // shipping a cancelled order contradicts it
    const link = orderRepositoriesOf(direct.store).links.get(orderId);
    expect(link).toMatchObject({ status: 'cancelled', erpIntent: null });
    expect((await runOrders(direct, RUN)).error).toBeUndefined();
    expect(await fileFlavour.updates(world!, orderId)).toEqual([`${orderId}-1.json`]);
  });
});
