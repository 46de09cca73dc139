import { describe, expect, it } from 'vitest';
import { inStep } from '../../../../src/sync/push/inStep.js';
import { NOTHING_HELD } from '../../../../src/sync/push/pushKind.js';
import type { PriceRecord } from '../../../../src/domain/records.js';
import { priceFingerprint } from '../../../../src/sync/push/fingerprint.js';
import { pricesPush } from '../../../../src/sync/push/pricesPush.js';
import { usePlatformProducts } from '../../../support/usePlatformProducts.js';

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

describe('pricesPush.send, against the sandbox', () => {
  const platform = usePlatformProducts();

  it('prices: sends the fields given, leaves the others, and the platform then holds them (in step)', async () => {
    const { client, simple, itemOf } = platform;
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
    const { client } = platform;
    const result = await pricesPush.send(client, [
      pricesPush.value({ sku: 'NO-SUCH-SKU', price: 1 }, NOTHING_HELD).wire,
    ]);
    expect(result.updated).toBe(0);
    expect(result.notFound).toEqual([expect.objectContaining({ sku: 'NO-SUCH-SKU' })]);
  });
});
