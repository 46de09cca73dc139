import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FEEDBACK_CHECKPOINT, runFeedback } from '../../../src/sync/orders/feedback.js';
import { runOrders } from '../../../src/sync/orders/orders.js';
import { createPlatformOrder, sellableSku } from '../../support/orderChecks.js';
import { startOrderWorld, type OrderWorld } from '../../support/orderWorld.js';
import { startStubPlatformWorld, type StubPlatformWorld } from '../../support/stubPlatformWorld.js';

/*
 * An ERP reports "shipped" for an order still "new" on the platform. On a platform whose move
 * table only allows single steps (and on the sandbox, which refuses new -> shipped), the order is
 * walked along new -> confirmed -> processing -> shipped, one PATCH per step, the event's note on
 * the last; shipping a cancelled order stays a reject.
 */

const RUN = { full: false, dryRun: false };
let world: StubPlatformWorld | undefined;
let sandboxWorld: OrderWorld | undefined;
afterEach(async () => {
  await world?.close();
  await sandboxWorld?.close();
  world = undefined;
  sandboxWorld = undefined;
});

const STEP_NOTE = /^erp-sync: step towards shipped \(ERP event .+\)$/;

async function writeEvents(erpDir: string, lines: string[]): Promise<void> {
  await writeFile(join(erpDir, 'events.csv'), ['order_id,event,note', ...lines].join('\n'));
}

describe('lifecycle walk on a platform that allows single steps only', () => {
  it('ships a new order by walking it through confirmed and processing, the note on the last step', async () => {
    world = await startStubPlatformWorld({ lineKey: 'lines', list: 'summary', writeAnswer: 'summary' });
    const id = world.platform.add();
    await runOrders(await world.context(), RUN);
    await writeEvents(world.erpDir, [`${id},shipped,left the warehouse`]);
    world.platform.server.requests.length = 0;

    const run = await runFeedback(await world.context(), RUN);
    expect(run.error).toBeUndefined();
    expect(run.applied).toBe(1);
    expect(run.rejected).toBe(0);
    expect(run.extra.walked).toBe(1);
    expect(run.extra.walkSteps).toBe(3);
    expect(world.platform.calls()).toEqual([
      `PATCH /orders/${id} shipped`, // refused: new -> shipped is not a move here
      `GET /orders/${id}`,
      `PATCH /orders/${id} confirmed`,
      `PATCH /orders/${id} processing`,
      `PATCH /orders/${id} shipped`,
    ]);
    const history = world.platform.orders.get(id)!.history;
    expect(history.map((h) => `${h.from}->${h.to}`)).toEqual([
      'new->confirmed',
      'confirmed->processing',
      'processing->shipped',
    ]);
    expect(history[0]!.note).toMatch(STEP_NOTE);
    expect(history[1]!.note).toMatch(STEP_NOTE);
    expect(history[2]!.note).toBe('left the warehouse');
    expect(await readdir(join(world.erpDir, 'outbox', 'results'))).toContain(`${id}-shipped.json`);
  });

  it('walks a new order to returned through shipped', async () => {
    world = await startStubPlatformWorld();
    const id = world.platform.add();
    await writeEvents(world.erpDir, [`${id},returned,came back`]);
    const run = await runFeedback(await world.context(), RUN);
    expect(run.applied).toBe(1);
    const history = world.platform.orders.get(id)!.history;
    expect(history.map((h) => h.to)).toEqual(['confirmed', 'processing', 'shipped', 'returned']);
    expect(history.at(-1)!.note).toBe('came back');
  });

  it('rejects shipping a cancelled order, naming the state, and moves nothing', async () => {
    world = await startStubPlatformWorld();
    const id = world.platform.add({ status: 'cancelled' });
    await writeEvents(world.erpDir, [`${id},shipped,too late`]);
    const ctx = await world.context();
    const run = await runFeedback(ctx, RUN);
    expect(run.applied).toBe(0);
    expect(run.rejected).toBe(1);
    const rejects = ctx.store.rejects.list({ pipeline: 'feedback' });
    expect(rejects.map((r) => r.key)).toEqual([`${id}:shipped`]);
    expect(rejects[0]!.reason).toMatch(/the order is cancelled on the platform; "shipped" contradicts it/);
    expect(world.platform.orders.get(id)!.record.status).toBe('cancelled');
    expect(world.platform.calls().filter((c) => c.startsWith('PATCH'))).toEqual([
      `PATCH /orders/${id} shipped`,
    ]);
  });

  it('resumes a walk interrupted between steps where the order is, each step made once; a redo after the last step changes nothing', async () => {
    world = await startStubPlatformWorld();
    const id = world.platform.add();
    await writeEvents(world.erpDir, [`${id},shipped,left the warehouse`]);
    // The platform fails the second step (503 on every try): the run stops at this event.
    world.platform.intercept(
      (r) => r.method === 'PATCH' && (r.body as { status?: string }).status === 'processing',
      { status: 503, json: { error: 'unavailable', message: 'try later' } },
    );
    const interrupted = await runFeedback(await world.context(), RUN);
    expect(interrupted.applied).toBe(0);
    expect(interrupted.error?.code).toBe('api_server');
    expect(world.platform.orders.get(id)!.record.status).toBe('confirmed');

    world.platform.intercept(() => false, null);
    world.platform.server.requests.length = 0;
    const resumed = await runFeedback(await world.context(), RUN);
    expect(resumed.error).toBeUndefined();
    expect(resumed.applied).toBe(1);
    expect(world.platform.calls().filter((c) => c.startsWith('PATCH'))).toEqual([
      `PATCH /orders/${id} shipped`,
      `PATCH /orders/${id} processing`, // confirmed counts as made: not sent again
      `PATCH /orders/${id} shipped`,
    ]);
    const history = () => world!.platform.orders.get(id)!.history.map((h) => `${h.from}->${h.to}`);
    expect(history()).toEqual(['new->confirmed', 'confirmed->processing', 'processing->shipped']);

    // Killed after the last PATCH, before the store recorded the event: the redo is a no-op.
    const ctx = await world.context();
    ctx.store.db.exec('DELETE FROM applied_events');
    ctx.store.cursors.delete(FEEDBACK_CHECKPOINT);
    const redo = await runFeedback(ctx, RUN);
    expect(redo.applied).toBe(1);
    expect(redo.rejected).toBe(0);
    expect(history()).toEqual(['new->confirmed', 'confirmed->processing', 'processing->shipped']);
  });
});

describe('lifecycle walk on the sandbox', () => {
  it('ships a new order (the sandbox refuses new -> shipped) through confirmed and processing', async () => {
    sandboxWorld = await startOrderWorld();
    const sku = await sellableSku(sandboxWorld.api);
    const order = await createPlatformOrder(sandboxWorld.api, sku);
    await runOrders(await sandboxWorld.context(), RUN);
    await writeEvents(join(sandboxWorld.dir, 'erp'), [`${order.id},shipped,left the warehouse`]);
    const run = await runFeedback(await sandboxWorld.context(), RUN);
    expect(run.error).toBeUndefined();
    expect(run.applied).toBe(1);
    expect(run.extra.walked).toBe(1);
    const platform = await sandboxWorld.api.orders.get(order.id);
    expect(platform.status).toBe('shipped');
    const history = platform.history as { from: string; to: string; note: string | null }[];
    expect(history.map((h) => `${h.from}->${h.to}`)).toEqual([
      'null->new', // the sandbox records the creation too
      'new->confirmed',
      'confirmed->processing',
      'processing->shipped',
    ]);
    expect(history[1]!.note).toMatch(STEP_NOTE);
    expect(history[2]!.note).toMatch(STEP_NOTE);
    expect(history[3]!.note).toBe('left the warehouse');
  });
});
