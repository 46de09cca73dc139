import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, STACK_TRACE } from '../../../support/cli.js';
import type { TrytonServer } from '../../../support/trytonServer.js';
import {
  startTryton,
  startTrytonWorld,
  TRYTON_SEED,
  type TrytonWorld,
} from '../../../support/trytonWorld.js';

let tryton: TrytonServer;
let world: TrytonWorld;
const password = 'Kq7#vLz2-Wm9x';

beforeAll(async () => {
  tryton = await startTryton();
  world = await startTrytonWorld(tryton);
  const groups = await world.rpc.model<{ id: number; name: string }[]>('res.group', 'search_read', [
    [['name', 'in', ['Sales', 'Stock']]],
    0,
    null,
    null,
    ['name'],
  ]);
  const id = (name: string) => groups.find((g) => g.name === name)!.id;
  // The groups docs/tryton-adapter.md asks for, and a user missing one of them.
  await world.rpc.model('res.user', 'create', [
    [
      { name: 'erp-sync', login: 'erp_sync', password, groups: [['add', [id('Sales'), id('Stock')]]] },
      { name: 'erp-sync stock only', login: 'erp_sync_stock', password, groups: [['add', [id('Stock')]]] },
    ],
  ]);
}, 600_000);
afterAll(async () => {
  await world?.close();
  await tryton?.stop();
});

/** The world's configuration as this Tryton user. */
async function configAs(user: string): Promise<string> {
  const raw = JSON.parse(await readFile(world.configPath, 'utf8')) as Record<string, unknown>;
  const path = join(world.dir, `${user}.json`);
  await writeFile(
    path,
    JSON.stringify({
      ...raw,
      erp: { ...(raw.erp as Record<string, unknown>), user },
      log: { level: 'warn' },
    }),
  );
  return path;
}

const env = { TRYTON_PASSWORD: password, REDIS_URL: 'redis://127.0.0.1:6379' };

describe("the Tryton user's rights", { timeout: 240_000 }, () => {
  it('check passes for a user in the documented groups, who then imports orders, reads stock and sends feedback', async () => {
    const config = await configAs('erp_sync');
    const check = await runCli(['check', '--config', config], env);
    expect(check.stdout).toMatch(/^ok\s+ERP \(tryton\): Tryton \S+ as erp_sync: \d+ products with a code/m);
    expect(check.stdout).toContain('rights: every model and sale button the adapter uses');
    expect(check.code, check.stdout).toBe(0);

    const order = await world.api.orders.create({
      customer: { name: 'Ana Pop', email: 'ana.pop@example.ro' },
      items: [{ sku: TRYTON_SEED.skus[0]!, quantity: 1 }],
    });
    const run = await runCli(['run-once', '--only', 'orders,stock,prices,feedback', '--config', config], env);
    expect(run.stderr).not.toMatch(/failed|stopped/);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const sales = await world.rpc.model<{ state: string }[]>('sale.sale', 'search_read', [
      [['reference', '=', String(order.id)]],
      0,
      null,
      null,
      ['state'],
    ]);
    expect(sales.map((s) => s.state)).toEqual(['processing']);
    expect(check.stdout + run.stdout + run.stderr).not.toContain(password);
  });

  it('check names every right a user without the Sales group lacks; its order import fails naming Tryton and parks nothing', async () => {
    const config = await configAs('erp_sync_stock');
    const check = await runCli(['check', '--config', config], env);
    expect(check.code).toBe(1);
    expect(check.stdout).toMatch(
      /^FAIL ERP \(tryton\): Tryton \S+ as erp_sync_stock: \d+ products with a code/m,
    );
    expect(check.stdout).toContain(
      "rights MISSING for erp-sync's user: read account.invoice, read sale.sale, create sale.sale, write sale.sale, read sale.line, create sale.line, button sale.sale cancel (group Sales), button sale.sale draft (group Sales), button sale.sale quote (group Sales), button sale.sale confirm (group Sales)",
    );

    for (let i = 0; i < 3; i++)
      await world.api.orders.create({
        customer: { name: `Client ${i}`, email: `rights-${i}@example.ro` },
        items: [{ sku: TRYTON_SEED.skus[1]!, quantity: 1 }],
      });
    const run = await runCli(['run-once', '--only', 'orders', '--config', config], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^erp-sync: orders failed: erp_permission: 3 of 3 order\(s\) not imported, tried again next run; the import stopped after 3 failures in a row: Tryton at http:\/\/127\.0\.0\.1:\d+\/erp\/ refused model\.sale\.sale\.search_read: a right of erp-sync's user is missing: You are not allowed to access "Sale"\.$/m,
    );
    expect(run.stderr).not.toMatch(STACK_TRACE);
    const parked = await runCli(['orders', 'parked', '--json', '--config', config], env);
    expect(JSON.parse(parked.stdout)).toEqual([]);
  });
});
