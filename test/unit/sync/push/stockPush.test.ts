import { describe, expect, it } from 'vitest';
import { inStep } from '../../../../src/sync/push/inStep.js';
import { NOTHING_HELD } from '../../../../src/sync/push/pushKind.js';
import type { StockRecord } from '../../../../src/domain/records.js';
import { stockFingerprint } from '../../../../src/sync/push/fingerprint.js';
import { stockPush } from '../../../../src/sync/push/stockPush.js';
import { usePlatformProducts } from '../../../support/usePlatformProducts.js';

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

describe('stockPush.send, against the sandbox', () => {
  const platform = usePlatformProducts();

  it('stock: sends the quantities, and the platform then holds them (in step)', async () => {
    const { client, simple, variable, variantSku, itemOf } = platform;
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
});
