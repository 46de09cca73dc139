import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient, type ApiClient } from '../../../../src/api/createApiClient.js';
import type { ApiProduct } from '../../../../src/api/schemas.js';
import type { PriceRecord, StockRecord } from '../../../../src/domain/records.js';
import { startSandbox, type Sandbox } from '../../../../src/sandbox/index.js';
import { platformItems } from '../../../../src/sync/catalog/catalog.js';
import { priceFingerprint, stockFingerprint } from '../../../../src/sync/push/fingerprint.js';
import { inStep } from '../../../../src/sync/push/inStep.js';
import { NOTHING_HELD } from '../../../../src/sync/push/pushKind.js';
import {
  isPushPipeline,
  perPushPipeline,
  PUSH_KINDS,
  PUSH_PIPELINES,
} from '../../../../src/sync/push/pushKinds.js';
import { pricesPush } from '../../../../src/sync/push/pricesPush.js';
import { stockPush } from '../../../../src/sync/push/stockPush.js';

describe('the push kinds registry', () => {
  it('holds stock then prices, each under its own name', () => {
    expect(PUSH_PIPELINES).toEqual(['stock', 'prices']);
    expect(PUSH_KINDS.stock).toBe(stockPush);
    expect(PUSH_KINDS.prices).toBe(pricesPush);
    for (const pipeline of PUSH_PIPELINES) expect(PUSH_KINDS[pipeline].pipeline).toBe(pipeline);
  });

  it('tells the push pipelines from the others', () => {
    expect(PUSH_PIPELINES.every(isPushPipeline)).toBe(true);
    expect(['orders', 'catalog', 'products', 'toString', ''].some(isPushPipeline)).toBe(false);
  });

  it('builds one value per push pipeline', () => {
    expect(perPushPipeline((pipeline) => pipeline.length)).toEqual({ stock: 5, prices: 6 });
  });

  it('holds back units from stock only', () => {
    expect(stockPush.holdsBack).toBe(true);
    expect(pricesPush.holdsBack).toBe(false);
  });
});

describe('stockPush', () => {
  const record: StockRecord = { sku: 'TEE', variantSku: 'TEE-M', quantity: 10 };

  it('validates the record by the spec limits', () => {
    expect(stockPush.validate(record)).toBeNull();
    expect(stockPush.validate({ sku: 'TEE', quantity: -1 })).toMatch(/quantity/);
    expect(stockPush.validate({ sku: 'TEE', quantity: 1.5 })).toMatch(/quantity/);
    expect(stockPush.validate({ sku: '', quantity: 1 })).not.toBeNull();
  });

  it('pushes the ERP quantity less the units held and the buffer, never below 0, as an absolute quantity', () => {
    expect(stockPush.value(record, { held: 3, buffer: 2 })).toEqual({
      hash: stockFingerprint(5),
      wire: { sku: 'TEE', variant_sku: 'TEE-M', quantity: 5 },
    });
    expect(stockPush.value(record, { held: 8, buffer: 5 }).wire.quantity).toBe(0);
    expect(stockPush.value({ sku: 'MUG', quantity: 4 }, NOTHING_HELD)).toEqual({
      hash: stockFingerprint(4),
      wire: { sku: 'MUG', quantity: 4 },
    });
  });

  it('shows the ERP quantity, the quantity it would push and the platform stock (null when none)', () => {
    const value = stockPush.value(record, { held: 1, buffer: 0 });
    expect(stockPush.show.erp(record)).toBe(10);
    expect(stockPush.show.push(value)).toBe(9);
    expect(stockPush.show.platform({ stock: 4, prices: { price: 1 } })).toBe(4);
    expect(stockPush.show.platform({ stock: undefined, prices: {} })).toBeNull();
    expect(stockPush.show.variableParent).toMatch(/variants carry the stock/);
  });
});

describe('pricesPush', () => {
  const record: PriceRecord = { sku: 'TEE', variantSku: 'TEE-M', price: 20, salePrice: null, vatRate: 21 };

  it('validates the record by the spec limits', () => {
    expect(pricesPush.validate(record)).toBeNull();
    expect(pricesPush.validate({ sku: 'TEE' })).toMatch(/no price field/);
    expect(pricesPush.validate({ sku: 'TEE', price: 5, salePrice: 6 })).toMatch(
      /sale_price 6 is above price 5/,
    );
    expect(pricesPush.validate({ sku: 'TEE', price: -1 })).toMatch(/price/);
  });

  it('pushes only the fields the ERP gives, a null sale price as a clear, whatever is held back', () => {
    const expected = {
      hash: priceFingerprint(record),
      wire: { sku: 'TEE', variant_sku: 'TEE-M', price: 20, sale_price: null, vat_rate: 21 },
    };
    expect(pricesPush.value(record, NOTHING_HELD)).toEqual(expected);
    expect(pricesPush.value(record, { held: 5, buffer: 5 })).toEqual(expected);
    expect(expected.hash).toBe('p=20|s=null|v=21');
    expect(pricesPush.value({ sku: 'MUG', costPrice: 3 }, NOTHING_HELD)).toEqual({
      hash: 'c=3',
      wire: { sku: 'MUG', cost_price: 3 },
    });
  });

  it('shows the ERP fields without the keys, the fingerprint it would push and the platform prices', () => {
    expect(pricesPush.show.erp(record)).toEqual({ price: 20, salePrice: null, vatRate: 21 });
    expect(pricesPush.show.push(pricesPush.value(record, NOTHING_HELD))).toBe('p=20|s=null|v=21');
    const prices = { price: 20, salePrice: null, costPrice: 3, vatRate: 21 };
    expect(pricesPush.show.platform({ stock: 1, prices })).toEqual(prices);
    expect(pricesPush.show.variableParent).toMatch(/variants' prices are pushed/);
  });
});

describe('send, against the sandbox', () => {
  let sandbox: Sandbox;
  let client: ApiClient;
  let simple: ApiProduct;
  let variable: ApiProduct;
  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, seed: 'demo' });
    client = createApiClient({ baseUrl: sandbox.url, apiKey: sandbox.keys.primary, retries: 0 });
    const products = (await client.products.list({ per_page: 100 })).data;
    simple = products.find((p) => p.type !== 'variable')!;
    variable = products.find((p) => p.type === 'variable' && (p.variants ?? []).some((v) => v.sku))!;
    expect(simple).toBeDefined();
    expect(variable).toBeDefined();
  });
  afterAll(async () => {
    await client?.close();
    await sandbox?.close();
  });

  const itemOf = async (product: ApiProduct, key: string) =>
    platformItems(await client.products.get(product.id)).find((item) => item.key === key)!;

  it('stock: sends the quantities, and the platform then holds them (in step)', async () => {
    const variantSku = variable.variants!.find((v) => v.sku)!.sku!;
    const values = [
      stockPush.value({ sku: simple.sku, quantity: 17 }, { held: 2, buffer: 1 }),
      stockPush.value({ sku: variable.sku, variantSku, quantity: 9 }, NOTHING_HELD),
    ];
    const result = await stockPush.send(
      client,
      values.map((value) => value.wire),
    );
    expect(result).toEqual({ updated: 2, notFound: [] });
    const simpleItem = await itemOf(simple, simple.sku);
    const variantItem = await itemOf(variable, `${variable.sku}/${variantSku}`);
    expect(simpleItem.stock).toBe(14);
    expect(variantItem.stock).toBe(9);
    expect(inStep('stock', values[0]!.hash, simpleItem)).toBe(true);
    expect(inStep('stock', values[1]!.hash, variantItem)).toBe(true);
    expect(inStep('stock', stockFingerprint(15), simpleItem)).toBe(false);
  });

  it('prices: sends the fields given, leaves the others, and the platform then holds them (in step)', async () => {
    const before = await itemOf(simple, simple.sku);
    const value = pricesPush.value({ sku: simple.sku, price: 123.45, salePrice: null }, NOTHING_HELD);
    expect(await pricesPush.send(client, [value.wire])).toEqual({ updated: 1, notFound: [] });
    const after = await itemOf(simple, simple.sku);
    expect(after.prices).toMatchObject({ price: 123.45, salePrice: null, vatRate: before.prices.vatRate });
    expect(after.stock).toBe(before.stock);
    expect(inStep('prices', value.hash, after)).toBe(true);
    expect(inStep('prices', value.hash, before)).toBe(false);
  });

  it('reports what the platform does not have instead of applying it', async () => {
    const result = await pricesPush.send(client, [
      pricesPush.value({ sku: 'NO-SUCH-SKU', price: 1 }, NOTHING_HELD).wire,
    ]);
    expect(result.updated).toBe(0);
    expect(result.notFound).toEqual([expect.objectContaining({ sku: 'NO-SUCH-SKU' })]);
  });
});
