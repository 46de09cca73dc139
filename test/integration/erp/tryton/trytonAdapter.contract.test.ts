import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../../src/config.js';
import { openErpAdapter } from '../../../../src/erp/createErpAdapter.js';
import { TrytonClient } from '../../../../src/erp/tryton/TrytonClient.js';
import { TrytonDecimal } from '../../../../src/erp/tryton/trytonValues.js';
import { silentLogger } from '../../../../src/logger.js';
import { describeOrderImportContract, type ContractSeed } from '../../../contract/erpAdapterContract.js';
import { startTryton, TRYTON_SEED, type TrytonServer } from '../../../support/trytonServer.js';

let tryton: TrytonServer;
let dir: string;
let rpc: TrytonClient;

beforeAll(async () => {
  tryton = await startTryton();
  dir = await mkdtemp(join(tmpdir(), 'tryton-contract-'));
  rpc = new TrytonClient({
    url: tryton.url,
    database: tryton.database,
    user: tryton.user,
    password: tryton.password,
    context: { company: TRYTON_SEED.companyId },
    logger: silentLogger(),
  });
}, 600_000);
afterAll(async () => {
  await rpc?.close();
  await tryton?.stop();
  await rm(dir, { recursive: true, force: true });
});

/**
 * Seeds Tryton with what a typed ERP can hold of the contract's data: a salable good for every
 * well-formed stock row's SKU (Tryton has no "abc" quantity to reject, nor free-form events).
 */
async function seedGoods(seed: Partial<ContractSeed>): Promise<void> {
  const skus = new Set(
    (seed.stock ?? [])
      .filter((row) => row.sku?.trim() && !row.variant_sku && /^\s*\d+\s*$/.test(row.quantity ?? ''))
      .map((row) => row.sku!.trim()),
  );
  const [category] = await rpc.model<{ id: number }[]>('product.category', 'search_read', [
    [['accounting', '=', true]],
    0,
    1,
    null,
    ['id'],
  ]);
  for (const sku of skus) {
    if ((await rpc.model<number>('product.product', 'search_count', [[['code', '=', sku]]])) > 0) continue;
    await rpc.model('product.template', 'create', [
      [
        {
          name: `Contract ${sku}`,
          code: sku,
          type: 'goods',
          default_uom: 1,
          salable: true,
          sale_uom: 1,
          list_price: new TrytonDecimal('8.40'),
          account_category: category!.id,
          products: [['create', [{}]]],
        },
      ],
    ]);
  }
}

function adapterConfig(erp: Record<string, unknown> = {}) {
  return parseConfig({
    api: { baseUrl: 'http://127.0.0.1:9/api/v2', apiKey: 'unused' },
    erp: {
      type: 'tryton',
      url: tryton.url,
      database: tryton.database,
      user: tryton.user,
      password: tryton.password,
      // Quoted, not confirmed: the contract cancels its order, which Tryton allows until confirmed.
      orders: { confirm: false },
      ...erp,
    },
  }).erp;
}

describeOrderImportContract('tryton', async () => ({
  seed: seedGoods,
  open: () => openErpAdapter(adapterConfig(), silentLogger()),
  // Tryton orders are not sent to the platform by this adapter: nothing is ever told.
  toldPlatformOrder: async () => null,
  // The sale found by its reference; the change delivered (a cancellation) cancelled it.
  expectedLocation: (id) => ({
    place: expect.stringMatching(/^sale\.sale \d+$/) as string,
    facts: expect.objectContaining({ reference: String(id), state: 'cancelled' }) as Record<string, string>,
  }),
  cleanup: () => undefined,
}));

describe('Tryton adapter: port behaviour', { timeout: 120_000 }, () => {
  it('says it reads stock and prices as deltas when incremental, snapshots otherwise', async () => {
    const incremental = await openErpAdapter(adapterConfig(), silentLogger());
    const full = await openErpAdapter(
      adapterConfig({ stock: { incremental: false }, prices: { incremental: false } }),
      silentLogger(),
    );
    try {
      expect(incremental.capabilities.reads).toEqual({
        stock: 'delta',
        prices: 'delta',
        products: 'snapshot',
      });
      expect(full.capabilities.reads).toEqual({
        stock: 'snapshot',
        prices: 'snapshot',
        products: 'snapshot',
      });
    } finally {
      await incremental.close();
      await full.close();
    }
  });

  it('passes its check, and refuses to open with a warehouse code Tryton does not have', async () => {
    const adapter = await openErpAdapter(adapterConfig(), silentLogger());
    try {
      const check = await adapter.check();
      expect(check).toMatchObject({ ok: true });
      expect(check.details).toMatch(/\d+ products with a code/);
    } finally {
      await adapter.close();
    }
    await expect(
      openErpAdapter(adapterConfig({ warehouses: ['WH', 'NOPE'] }), silentLogger()),
    ).rejects.toThrow('erp.warehouses: no Tryton warehouse with the code NOPE');
  });

  it('fails to open with a wrong password as fatal, without the password in the error', async () => {
    const wrong = 'not-the-pw-91b2';
    const failure = await openErpAdapter(adapterConfig({ password: wrong }), silentLogger()).catch(
      (e: unknown) => e,
    );
    expect(failure).toMatchObject({ code: 'erp_auth', fatal: true });
    expect(JSON.stringify(failure)).not.toContain(wrong);
  });

  it('reads products with their names and gross prices', async () => {
    const adapter = await openErpAdapter(adapterConfig(), silentLogger());
    try {
      const rows = [];
      for await (const row of adapter.products()) rows.push(row);
      expect(rows.length).toBeGreaterThanOrEqual(20);
      expect(rows[0]).toMatchObject({
        ok: true,
        record: { sku: 'SKU-0001', name: 'Cafea boabe 1kg', price: 9.6, vatRate: 19 },
      });
    } finally {
      await adapter.close();
    }
  });
});
