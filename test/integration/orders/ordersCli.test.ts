import { execFile } from 'node:child_process';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { runOrders } from '../../../src/sync/orders/orders.js';
import {
  createPlatformOrder,
  outboxIds,
  platformOrderIds,
  sellableSku,
  writeInboxOrder,
} from '../../support/orderChecks.js';
import { startOrderWorld, type OrderWorld } from '../../support/orderWorld.js';

const run = promisify(execFile);
const CLI = join(import.meta.dirname, '..', '..', '..', 'src', 'cli', 'main.ts');
const cli = (world: OrderWorld, ...args: string[]) =>
  run(process.execPath, ['--import', 'tsx', CLI, ...args, '--config', world.configPath], { timeout: 30_000 });

let world: OrderWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe('erp-sync orders and status commands', () => {
  it('lists a parked order with its reason, shows it in status without the API key, retries it once fixed, and links it', async () => {
    world = await startOrderWorld({ config: { erp: { type: 'file', outbox: { requireKnownSkus: true } } } });
    const erpDir = join(world.dir, 'erp');
    await mkdir(erpDir, { recursive: true });
    const sku = await sellableSku(world.api);
    await writeFile(join(erpDir, 'stock.csv'), 'sku,quantity\nSOMETHING-ELSE,1\n');
    const order = await createPlatformOrder(world.api, sku, 1);
    await runOrders(await world.context(), { full: false, dryRun: false });

    const parked = JSON.parse((await cli(world, 'orders', 'parked', '--json')).stdout) as {
      platformOrderId: number;
      reason: string;
    }[];
    expect(parked.map((p) => p.platformOrderId)).toContain(order.id);
    expect(parked.find((p) => p.platformOrderId === order.id)!.reason).toContain(sku);

    const status = await cli(world, 'status', '--json');
    expect(status.stdout).not.toContain(world.sandbox.keys.primary);
    const report = JSON.parse(status.stdout) as {
      parkedOrders: { orderId: number }[];
      orders: { links: number };
    };
    expect(report.parkedOrders.map((p) => p.orderId)).toContain(order.id);

    await writeFile(join(erpDir, 'stock.csv'), `sku,quantity\n${sku},1\n`);
    const retry = await cli(world, 'orders', 'retry', String(order.id));
    expect(retry.stdout).toMatch(/retried 1 parked order/);
    const after = JSON.parse((await cli(world, 'orders', 'parked', '--json')).stdout) as {
      platformOrderId: number;
    }[];
    expect(after.map((p) => p.platformOrderId)).not.toContain(order.id);
    const links = JSON.parse((await cli(world, 'links', '--orders', '--json')).stdout) as {
      platformOrderId: number;
      erpRef: string;
    }[];
    expect(links.find((l) => l.platformOrderId === order.id)?.erpRef).toBe(`${order.id}.json`);
  }, 60_000);

  it('run-once --only orders,feedback,erp-orders: --dry-run previews only what a real run does, in order words, and writes nothing', async () => {
    world = await startOrderWorld();
    const erpDir = join(world.dir, 'erp');
    const sku = await sellableSku(world.api);
    await writeInboxOrder(erpDir, 'PH-1.json', {
      source_order_id: 'PH-1',
      customer: { name: 'P', email: 'p@example.ro' },
      items: [{ sku, quantity: 1 }],
    });
    const importable = await platformOrderIds(world.api, ['new', 'confirmed']);
    expect(importable.length).toBeGreaterThan(0);
    const all = await platformOrderIds(world.api, [
      'new',
      'confirmed',
      'processing',
      'shipped',
      'cancelled',
      'returned',
    ]);
    expect(all.length).toBeGreaterThan(importable.length); // the seed has orders in every status

    const only = ['run-once', '--only', 'orders,feedback,erp-orders'];
    const preview = (await cli(world, ...only, '--dry-run')).stdout;
    expect(preview).toContain(
      `orders: would import ${importable.length} order(s) into the ERP and deliver 0 change(s)`,
    );
    expect(preview).toContain('erp-orders: would create 1 order(s) on the platform');
    expect(preview).not.toMatch(/item\(s\) in \d+ request/);
    const listed = preview
      .split('\n')
      .filter((line) => line.startsWith('  {"import"'))
      .map((line) => JSON.parse(line) as { import: number; status: string });
    expect(listed.length).toBeGreaterThan(0);
    for (const item of listed) {
      expect(['new', 'confirmed']).toContain(item.status);
      expect(importable).toContain(item.import);
    }
    await expect(readdir(join(erpDir, 'outbox'))).rejects.toThrow(); // nothing written

    // The real run logs at debug level: neither the API key nor customer data reaches the log.
    const raw = JSON.parse(await readFile(world.configPath, 'utf8')) as Record<string, unknown>;
    const debugConfig = join(world.dir, 'debug.json');
    await writeFile(debugConfig, JSON.stringify({ ...raw, log: { level: 'debug' } }));
    const output = await run(
      process.execPath,
      ['--import', 'tsx', CLI, ...only, '--json', '--config', debugConfig],
      {
        timeout: 30_000,
      },
    );
    expect(output.stderr.length).toBeGreaterThan(0);
    const emails = (await world.api.customers.list({ per_page: 100 })).data.flatMap((c) =>
      c.email ? [c.email] : [],
    );
    for (const secret of [world.sandbox.keys.primary, 'p@example.ro', ...emails]) {
      expect(output.stderr).not.toContain(secret);
    }
    const real = JSON.parse(output.stdout) as {
      summaries: { pipeline: string; applied: number; error?: object }[];
    };
    expect(real.summaries.map((s) => s.pipeline).sort()).toEqual(['erp-orders', 'feedback', 'orders']);
    expect(real.summaries.every((s) => s.error === undefined)).toBe(true);
    expect(real.summaries.find((s) => s.pipeline === 'orders')!.applied).toBe(importable.length);
    expect(real.summaries.find((s) => s.pipeline === 'erp-orders')!.applied).toBe(1);
    expect((await outboxIds(erpDir)).ids).toEqual(importable);

    // A change after import is previewed as one update; the order born in the ERP is not an import.
    const newest = importable[importable.length - 1]!;
    await world.api.orders.update(newest, { status: 'cancelled' });
    const again = (await cli(world, ...only, '--dry-run')).stdout;
    expect(again).toContain('orders: would import 0 order(s) into the ERP and deliver 1 change(s)');
    expect(again).toContain(`{"update":${newest},"status":`);
    await expect(readdir(join(erpDir, 'outbox', 'updates'))).rejects.toThrow();
  }, 90_000);
});
