import { describe, expect, it } from 'vitest';
import { CellPicker, ColumnMap } from '../../../../src/erp/mapping/ColumnMap.js';
import { normaliseHeader } from '../../../../src/erp/mapping/fields.js';
import { parseBoolean, parseNumber } from '../../../../src/erp/mapping/numbers.js';
import { detectDelimiter } from '../../../../src/erp/file/readers/csvRows.js';

describe('parseNumber', () => {
  it('reads plain numbers and refuses commas without the decimal-comma option', () => {
    expect(parseNumber('12.50', false)).toBe(12.5);
    expect(parseNumber(' -3 ', false)).toBe(-3);
    expect(parseNumber(7, false)).toBe(7);
    expect(parseNumber('12,50', false)).toBeNaN();
    expect(parseNumber('1e3', false)).toBe(1000);
    expect(parseNumber('abc', false)).toBeNaN();
    expect(parseNumber('', false)).toBeNaN();
    expect(parseNumber(true, false)).toBeNaN();
  });

  it('reads Romanian exports with the decimal-comma option', () => {
    expect(parseNumber('12,50', true)).toBe(12.5);
    expect(parseNumber('1.234,50', true)).toBe(1234.5);
    expect(parseNumber('1.234.567', true)).toBe(1234567);
    expect(parseNumber('1 234,5', true)).toBe(1234.5);
    expect(parseNumber('1\u00a0234', true)).toBe(1234);
    expect(parseNumber('0,5', true)).toBe(0.5);
    expect(parseNumber('1,2,3', true)).toBeNaN();
    expect(parseNumber('2.5', true)).toBe(2.5);
  });

  it('reads yes/no values in English and Romanian', () => {
    expect(parseBoolean('Da')).toBe(true);
    expect(parseBoolean('nu')).toBe(false);
    expect(parseBoolean(1)).toBe(true);
    expect(parseBoolean('maybe')).toBeUndefined();
  });
});

describe('column mapping', () => {
  it('normalises header spellings', () => {
    expect(normaliseHeader(' Sale Price ')).toBe('sale_price');
    expect(normaliseHeader('salePrice')).toBe('sale_price');
    expect(normaliseHeader('\uFEFFVAT-Rate')).toBe('vat_rate');
  });

  it('maps default aliases case-insensitively and ignores unknown headers', () => {
    const map = new ColumnMap('stock');
    expect(map.field('COD')).toBe('sku');
    expect(map.field('Cantitate')).toBe('quantity');
    expect(map.field('Stoc')).toBe('quantity');
    expect(map.field('variant_sku')).toBe('variant_sku');
    expect(map.field('warehouse')).toBeUndefined();
    const prices = new ColumnMap('prices');
    expect(prices.field('TVA')).toBe('vat_rate');
    expect(prices.field('Pret')).toBe('price');
  });

  it('lets configured aliases win, and keeps the first non-empty value per field', () => {
    const map = new ColumnMap('stock', { quantity: ['Disponibil Magazin'], sku: ['Articol'] });
    expect(map.field('disponibil magazin')).toBe('quantity');
    expect(map.field('ARTICOL')).toBe('sku');
    const picked = map.pick({ Articol: 'A', qty: '', 'Disponibil Magazin': '4', stock: '9' });
    expect(Object.fromEntries(picked)).toEqual({ sku: 'A', quantity: '4' });
  });

  it('maps rows by position as it maps them by name: columns once per file, each row viewed', () => {
    const map = new ColumnMap('stock', { quantity: ['Disponibil Magazin'], sku: ['Articol'] });
    const header = ['Articol', 'qty', 'Disponibil Magazin', 'stock', 'warehouse', ''];
    const picker = new CellPicker(map, header);
    for (const cells of [
      ['A', '', '4', '9', 'W1', 'x'],
      ['B', ' ', '', ''],
      ['', '7'],
    ]) {
      const byName = map.pick(Object.fromEntries(header.map((name, i) => [name, cells[i] ?? ''])));
      const view = picker.of(cells);
      for (const field of ['sku', 'quantity', 'variant_sku'])
        expect(view.get(field), `${cells.join('|')}: ${field}`).toEqual(byName.get(field));
    }
    expect(picker.of(['B', ' ', '', '']).get('quantity')).toBeNull();
    expect(picker.of(['B']).get('variant_sku')).toBeUndefined();
  });
});

describe('delimiter detection', () => {
  it('picks the separator the header line uses most, outside quotes', () => {
    expect(detectDelimiter('sku;quantity;variant_sku')).toBe(';');
    expect(detectDelimiter('sku,quantity')).toBe(',');
    expect(detectDelimiter('"a,b,c";quantity\nx,y,z,w')).toBe(';');
    expect(detectDelimiter('sku')).toBe(',');
  });
});
