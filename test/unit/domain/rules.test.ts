import { describe, expect, it } from 'vitest';
import {
  nameReasons,
  priceRecordReasons,
  productRecordReasons,
  stockRecordReasons,
} from '../../../src/domain/rules.js';

describe('stock rules', () => {
  it('accepts a whole quantity of zero or more', () => {
    expect(stockRecordReasons({ sku: 'A', quantity: 0 })).toEqual([]);
    expect(stockRecordReasons({ sku: 'A', variantSku: 'A-1', quantity: 1_000_000 })).toEqual([]);
  });

  it('refuses a missing SKU, a fraction, a negative or a non-finite quantity', () => {
    expect(stockRecordReasons({ sku: ' ', quantity: 1 })).toEqual(['missing sku']);
    expect(stockRecordReasons({ sku: 'A', quantity: 1.5 })).toEqual([
      'quantity must be a whole number, got 1.5',
    ]);
    expect(stockRecordReasons({ sku: 'A', quantity: -1 })).toEqual(['quantity must be at least 0, got -1']);
    expect(stockRecordReasons({ sku: 'A', quantity: Number.NaN })).toEqual(['quantity is not a number']);
    expect(stockRecordReasons({ sku: 'A', quantity: Infinity })).toEqual(['quantity is not a number']);
  });
});

describe('price rules', () => {
  it('accepts any one price field alone', () => {
    expect(priceRecordReasons({ sku: 'A', price: 0 })).toEqual([]);
    expect(priceRecordReasons({ sku: 'A', vatRate: 0 })).toEqual([]);
    expect(priceRecordReasons({ sku: 'A', costPrice: 3.25 })).toEqual([]);
  });

  it('accepts a cleared sale price (null) as the one price field', () => {
    expect(priceRecordReasons({ sku: 'A', salePrice: null })).toEqual([]);
    expect(priceRecordReasons({ sku: 'A', price: -1, salePrice: null })).toEqual([
      'price must be at least 0, got -1',
    ]);
  });

  it('refuses no price field, negative prices and VAT outside 0-100 or fractional', () => {
    expect(priceRecordReasons({ sku: 'A' })).toEqual([
      'no price field (price, sale_price, cost_price or vat_rate)',
    ]);
    expect(priceRecordReasons({ sku: 'A', price: -0.01, salePrice: -2 })).toEqual([
      'price must be at least 0, got -0.01',
      'sale_price must be at least 0, got -2',
    ]);
    expect(priceRecordReasons({ sku: 'A', vatRate: 101 })).toEqual([
      'vat_rate must be between 0 and 100, got 101',
    ]);
    expect(priceRecordReasons({ sku: 'A', vatRate: -1 })).toEqual([
      'vat_rate must be between 0 and 100, got -1',
    ]);
    expect(priceRecordReasons({ sku: 'A', vatRate: 9.5 })).toEqual([
      'vat_rate must be a whole number, got 9.5',
    ]);
    expect(priceRecordReasons({ sku: 'A', vatRate: 100 })).toEqual([]);
  });
});

describe('product rules', () => {
  it('counts name length in characters, up to 191', () => {
    expect(nameReasons('ă'.repeat(191))).toEqual([]);
    expect(nameReasons('ă'.repeat(192))).toEqual(['name is longer than 191 characters (192)']);
    expect(nameReasons('')).toEqual(['missing name']);
  });

  it('refuses an unknown status, a bad stock quantity and a fractional weight', () => {
    expect(
      productRecordReasons({
        sku: 'P',
        name: 'Pen',
        status: 'deleted' as never,
        stockQuantity: -1,
        weightGrams: 1.5,
      }),
    ).toEqual([
      'status must be one of active, draft, archived, got deleted',
      'stock_quantity must be at least 0, got -1',
      'weight_grams must be a whole number, got 1.5',
    ]);
    expect(productRecordReasons({ sku: 'P', name: 'Pen', status: 'draft', vatRate: 19, price: 2 })).toEqual(
      [],
    );
  });
});
