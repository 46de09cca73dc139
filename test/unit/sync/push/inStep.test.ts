import { describe, expect, it } from 'vitest';
import {
  inFlightFingerprint,
  priceFingerprint,
  refusedFingerprint,
  stockFingerprint,
  type PlatformValues,
} from '../../../../src/sync/push/fingerprint.js';
import { inStep } from '../../../../src/sync/push/inStep.js';

const platform = (values: Partial<PlatformValues>): PlatformValues => ({
  stock: null,
  prices: {},
  ...values,
});

describe('inStep: stock', () => {
  it('is in step when the platform holds the quantity, and not when it holds another or none', () => {
    expect(inStep('stock', stockFingerprint(7), platform({ stock: 7 }))).toBe(true);
    expect(inStep('stock', stockFingerprint(0), platform({ stock: 0 }))).toBe(true);
    expect(inStep('stock', stockFingerprint(7), platform({ stock: 6 }))).toBe(false);
    expect(inStep('stock', stockFingerprint(0), platform({ stock: null }))).toBe(false);
  });

  it("counts a variable product's own stock (the sum of its variants) as in step, whatever the value", () => {
    expect(inStep('stock', stockFingerprint(7), platform({ stock: undefined }))).toBe(true);
  });

  it('never takes a refused or an in-flight value for the platform holding it', () => {
    expect(inStep('stock', refusedFingerprint(stockFingerprint(7)), platform({ stock: 7 }))).toBe(false);
    expect(inStep('stock', inFlightFingerprint(stockFingerprint(7)), platform({ stock: 7 }))).toBe(false);
  });

  it('ignores the prices', () => {
    const hash = stockFingerprint(3);
    expect(inStep('stock', hash, platform({ stock: 3, prices: { price: 1 } }))).toBe(true);
  });
});

describe('inStep: prices', () => {
  const hash = priceFingerprint({ price: 12.5, salePrice: 9, vatRate: 21 });

  it('is in step when every field pushed equals the platform to the cent, fields not pushed left alone', () => {
    expect(
      inStep('prices', hash, platform({ prices: { price: 12.5, salePrice: 9, vatRate: 21, costPrice: 4 } })),
    ).toBe(true);
    expect(inStep('prices', hash, platform({ prices: { price: 12.504, salePrice: 9, vatRate: 21 } }))).toBe(
      true,
    );
    expect(inStep('prices', hash, platform({ prices: { price: 12.49, salePrice: 9, vatRate: 21 } }))).toBe(
      false,
    );
    expect(inStep('prices', hash, platform({ prices: { price: 12.5, vatRate: 21 } }))).toBe(false);
  });

  it('takes a cleared sale price as in step only when the platform holds none', () => {
    const cleared = priceFingerprint({ price: 5, salePrice: null });
    expect(inStep('prices', cleared, platform({ prices: { price: 5, salePrice: null } }))).toBe(true);
    expect(inStep('prices', cleared, platform({ prices: { price: 5 } }))).toBe(true);
    expect(inStep('prices', cleared, platform({ prices: { price: 5, salePrice: 4 } }))).toBe(false);
  });

  it('never takes an empty, refused or in-flight value for the platform holding it', () => {
    const prices = { price: 12.5, salePrice: 9, vatRate: 21 };
    expect(inStep('prices', '', platform({ prices }))).toBe(false);
    expect(inStep('prices', refusedFingerprint(hash), platform({ prices }))).toBe(false);
    expect(inStep('prices', inFlightFingerprint(hash), platform({ prices }))).toBe(false);
  });

  it('ignores the stock, even a variable product', () => {
    expect(inStep('prices', hash, platform({ stock: undefined, prices: {} }))).toBe(false);
  });
});
