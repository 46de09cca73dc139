import { describe, expect, it } from 'vitest';
import {
  priceFingerprint,
  pricesMatch,
  refusedFingerprint,
  stockFingerprint,
  stockMatches,
} from '../../../../src/sync/push/fingerprint.js';

describe('fingerprints', () => {
  it('recognise our own stock push and a platform-side change', () => {
    expect(stockMatches(stockFingerprint(7), 7)).toBe(true);
    expect(stockMatches(stockFingerprint(7), 6)).toBe(false);
    expect(stockMatches(refusedFingerprint(stockFingerprint(7)), 7)).toBe(false);
  });

  it('cover only the price fields the ERP sent', () => {
    const hash = priceFingerprint({ price: 12.5, vatRate: 19 });
    expect(hash).toBe('p=12.5|v=19');
    expect(pricesMatch(hash, { price: 12.5, salePrice: 3, vatRate: 19 })).toBe(true);
    expect(pricesMatch(hash, { price: 12.49, vatRate: 19 })).toBe(false);
    expect(pricesMatch(priceFingerprint({ price: 1.01 }), { price: 1.0 })).toBe(false);
    expect(pricesMatch(priceFingerprint({ price: 9.999 }), { price: 10 })).toBe(true);
  });

  it('tell a cleared sale price (null) from one not sent, and match the platform holding none', () => {
    const cleared = priceFingerprint({ price: 5, salePrice: null });
    expect(cleared).toBe('p=5|s=null');
    expect(cleared).not.toBe(priceFingerprint({ price: 5 }));
    expect(pricesMatch(cleared, { price: 5, salePrice: null })).toBe(true);
    expect(pricesMatch(cleared, { price: 5, salePrice: 4 })).toBe(false);
    expect(pricesMatch(cleared, { price: 5, salePrice: 0 })).toBe(false);
    expect(pricesMatch(priceFingerprint({ salePrice: 4 }), { salePrice: null })).toBe(false);
  });
});
