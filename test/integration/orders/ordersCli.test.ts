import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { runOrders } from '../../../src/sync/orders.js';
import { createPlatformOrder, sellableSku } from './orderChecks.js';
import { startOrderWorld, type OrderWorld } from './orderHarness.js';

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
    await runOrders(world.context(), { full: false, dryRun: false });

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
});
