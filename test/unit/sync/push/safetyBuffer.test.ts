import { describe, expect, it } from 'vitest';
import { createSafetyBuffer, globToRegExp, pushedQuantity } from '../../../../src/sync/push/safetyBuffer.js';

describe('safety buffer', () => {
  it('matches globs case-insensitively and literally otherwise', () => {
    expect(globToRegExp('SKU-1*').test('sku-123')).toBe(true);
    expect(globToRegExp('A?C').test('ABC')).toBe(true);
    expect(globToRegExp('A.C').test('ABC')).toBe(false);
  });

  it('uses the first matching rule, on SKU or variant SKU, else the global units', () => {
    const buffer = createSafetyBuffer({
      units: 1,
      rules: [
        { pattern: 'PHONE-*', units: 5 },
        { pattern: '*-RED', units: 2 },
        { pattern: 'PHONE-9', units: 9 },
      ],
    });
    expect(buffer({ sku: 'PHONE-9' })).toBe(5);
    expect(buffer({ sku: 'SHIRT', variantSku: 'SHIRT-RED' })).toBe(2);
    expect(buffer({ sku: 'MUG' })).toBe(1);
  });

  it('subtracts held units and the buffer, never below 0', () => {
    expect(pushedQuantity(10, 3, 2)).toBe(5);
    expect(pushedQuantity(2, 3, 2)).toBe(0);
  });
});
