import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAILURES_IN_A_ROW } from '../../../../src/sync/frame/failureStreak.js';
import { runCli, STACK_TRACE } from '../../../support/cli.js';
import { eventually, startDaemonProcess, type DaemonProcess } from '../../../../dev/daemonProcess.js';
import { startPrivateRedis, type PrivateRedis } from '../../../../dev/redisServer.js';
import { startRpcGate, type RpcGate } from '../../../support/rpcGate.js';
import type { TrytonServer } from '../../../support/trytonServer.js';
import {
  startTryton,
  startTrytonWorld,
  TRYTON_SEED,
  type TrytonWorld,
} from '../../../support/trytonWorld.js';

let tryton: TrytonServer;
let world: TrytonWorld;
let gate: RpcGate;

beforeAll(async () => {
  tryton = await startTryton();
  world = await startTrytonWorld(tryton);
}, 600_000);
afterAll(async () => {
  await gate?.close();
  await world?.close();
  await tryton?.stop();
});

const CREATE = 'model.sale.sale.create';

/** The world's configuration with Tryton behind the gate, and `extra` merged in. */
async function gatedConfig(name: string, extra: Record<string, unknown> = {}): Promise<string> {
  const raw = JSON.parse(await readFile(world.configPath, 'utf8')) as Record<string, unknown>;
  const erp = { ...(raw.erp as Record<string, unknown>), url: gate.url };
  const path = join(world.dir, name);
  await writeFile(path, JSON.stringify({ ...raw, erp, ...extra }));
  return path;
}

async function placeOrders(n: number, tag: string): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < n; i++) {
    const order = await world.api.orders.create({
      customer: { name: `Client ${tag} ${i}`, email: `${tag}-${i}@example.ro` },
      items: [{ sku: TRYTON_SEED.skus[i % TRYTON_SEED.skus.length]!, quantity: 1 }],
    });
    ids.push(order.id);
  }
  return ids;
}

/** The sales of each platform order, by state. */
async function salesOf(ids: number[]): Promise<Map<number, string[]>> {
  const sales = await world.rpc.model<{ reference: string; state: string }[]>('sale.sale', 'search_read', [
    [['reference', 'in', ids.map(String)]],
    0,
    null,
    [['id', 'ASC']],
    ['reference', 'state'],
  ]);
  const out = new Map<number, string[]>(ids.map((id) => [id, []]));
  for (const sale of sales) out.get(Number(sale.reference))?.push(sale.state);
  return out;
}

/** One sale per order, confirmed (Tryton moves it on to processing in a task of its own, soon after). */
function expectOneConfirmedSaleEach(sales: Map<number, string[]>): void {
  for (const [id, states] of sales) {
    expect(states, `order ${id}`).toHaveLength(1);
    expect(['confirmed', 'processing'], `order ${id}`).toContain(states[0]);
  }
}

describe('Tryton stops in the middle of an order import', { timeout: 240_000 }, () => {
  it('run-once exits 1 with one line naming Tryton and the cause, stops asking it, and the next run imports every order once', async () => {
    gate = await startRpcGate(tryton.url);
    const config = await gatedConfig('gated.json');
    const orders = await placeOrders(23, 'once');
    gate.downAfter(CREATE, 3);

    const down = await runCli(['run-once', '--only', 'orders', '--config', config], world.env, {
      timeoutMs: 120_000,
    });
    expect(down.code, down.stderr).toBe(1);
    // Two imported, the third's sale created but never confirmed, then three failures in a row.
    const line = `21 of 23 order(s) not imported, tried again next run; the import stopped after ${FAILURES_IN_A_ROW} failures in a row: Tryton at ${gate.url}erp/ did not answer`;
    expect(down.stdout).toContain(`orders: erp_unavailable: ${line}`);
    expect(down.stderr).toContain(`erp-sync: orders failed: erp_unavailable: ${line}`);
    expect(down.stderr).not.toMatch(STACK_TRACE);
    expect(down.stdout + down.stderr).not.toContain(tryton.password);
    // Not one request per order: three imports failed in a row (the third's sale was created, its
    // read was lost), then nothing more was asked but the logout.
    expect(gate.droppedMethods()).toEqual([
      'model.sale.sale.read',
      'model.sale.sale.search_read',
      'model.sale.sale.search_read',
      'common.db.logout',
    ]);

    gate.open();
    const up = await runCli(['run-once', '--only', 'orders', '--config', config], world.env, {
      timeoutMs: 120_000,
    });
    expect(up.code, up.stderr).toBe(0);
    expect(up.stderr).not.toContain('failed');
    expectOneConfirmedSaleEach(await salesOf(orders));
    await gate.close();
  });

  describe('in the daemon', () => {
    let redis: PrivateRedis;
    let daemon: DaemonProcess | undefined;
    afterAll(async () => {
      daemon?.kill('SIGKILL');
      await daemon?.exited;
      await redis?.close();
    });

    const metric = async (name: string): Promise<number> => {
      const text = await (await fetch(`${daemon!.url}/metrics`)).text();
      const match = new RegExp(`^${name.replace(/[{}]/g, '\\$&')} (\\S+)$`, 'm').exec(text);
      return match ? Number(match[1]) : 0;
    };
    const ready = async (): Promise<{ status: number; reasons: string[] }> => {
      const response = await fetch(`${daemon!.url}/readyz`);
      return { status: response.status, reasons: ((await response.json()) as { reasons: string[] }).reasons };
    };

    it('fails the import jobs (metric), holds the imports with readiness saying why, asks Tryton once per hold, and imports every order once it is back', async () => {
      redis = await startPrivateRedis();
      gate = await startRpcGate(tryton.url);
      const config = await gatedConfig('daemon.json', {
        redis: { url: redis.url, prefix: 'hold' },
        server: { host: '127.0.0.1', port: 0 },
        schedules: {
          catalog: 'off',
          products: 'off',
          orders: '*/1 * * * * *',
          stock: 'off',
          prices: 'off',
          feedback: 'off',
          'erp-orders': 'off',
        },
        queue: { attempts: 3, backoffSeconds: 0.2, probeSeconds: 3 },
        log: { level: 'warn' },
      });
      const orders = await placeOrders(20, 'daemon');
      gate.downAfter(CREATE, 3);
      daemon = await startDaemonProcess(config, world.env);

      await eventually('the imports held', async () => (await metric('erp_sync_imports_held')) === 1);
      const { status, reasons } = await ready();
      expect(status).toBe(503);
      expect(reasons.join('\n')).toMatch(
        new RegExp(
          `^order imports held since \\S+: ${FAILURES_IN_A_ROW} in a row failed: erp_unavailable: Tryton at ${gate.url}erp/ did not answer`,
          'm',
        ),
      );
      expect(
        await metric('erp_sync_job_failures_total{queue="imports",code="erp_unavailable"}'),
      ).toBeGreaterThanOrEqual(FAILURES_IN_A_ROW);
      expect(daemon.stderr()).toContain('order imports wait: 3 imports in a row failed');

      // Held: one import per probeSeconds (3 s) knocks, not every order and attempt.
      const knocked = gate.dropped();
      await new Promise((resolve) => setTimeout(resolve, 7_000));
      expect(gate.dropped() - knocked).toBeLessThanOrEqual(4);

      gate.open();
      await eventually(
        'every order in Tryton',
        // The third order's sale was created before Tryton stopped: it is finished, not created again.
        async () =>
          [...(await salesOf(orders)).values()].every((states) =>
            states.some((state) => state === 'confirmed' || state === 'processing'),
          ),
        90_000,
        500,
      );
      await eventually('the hold over', async () => (await metric('erp_sync_imports_held')) === 0);
      expect((await ready()).status).toBe(200);
      expectOneConfirmedSaleEach(await salesOf(orders));
      expect(daemon.stderr()).not.toMatch(STACK_TRACE);
    });
  });
});
