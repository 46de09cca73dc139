import type { ErpRow, PriceRecord } from '../../domain/records.js';
import type { TrytonClient } from './TrytonClient.js';
import { changedAt, latest, minusSeconds, searchReadAll } from './trytonRows.js';
import { TrytonDecimal } from './trytonValues.js';

export interface PriceReadSettings {
  overlapSeconds: number;
  addTaxes: boolean;
}

interface ProductPrice {
  id: number;
  code: string | null;
  list_price: unknown;
  create_date: unknown;
  write_date: unknown;
  'template.'?: { create_date?: unknown; write_date?: unknown; account_category?: number | null };
}

interface Category {
  id: number;
  customer_taxes_used: number[];
}

interface Tax {
  id: number;
  type: string;
  rate: unknown;
}

/**
 * List prices per SKU. The price lives on the template, so "changed since" asks both the variant
 * and its template (create or write, minus the overlap window). With `addTaxes` the net list
 * price is pushed with the product's percentage customer taxes added, and their sum as vatRate.
 */
export async function* readTrytonPrices(
  rpc: TrytonClient,
  settings: PriceReadSettings,
  since: Date | null,
  done: (next: Date | null) => void,
): AsyncGenerator<ErpRow<PriceRecord>[]> {
  const rates = settings.addTaxes ? await categoryRates(rpc) : new Map<number, number>();
  const domain: unknown[] = [
    ['salable', '=', true],
    ['code', '!=', null],
  ];
  if (since) {
    const from = minusSeconds(since, settings.overlapSeconds);
    domain.push([
      'OR',
      ['create_date', '>=', from],
      ['write_date', '>=', from],
      ['template.create_date', '>=', from],
      ['template.write_date', '>=', from],
    ]);
  }
  const fields = [
    'code',
    'list_price',
    'create_date',
    'write_date',
    'template.create_date',
    'template.write_date',
    'template.account_category',
  ];
  let next = since;
  for await (const page of searchReadAll<ProductPrice>(rpc, 'product.product', domain, fields)) {
    for (const product of page)
      next = latest(next, latest(changedAt(product), changedAt(product['template.'] ?? {})));
    yield page.map((product) => toPriceRow(product, rates, settings.addTaxes));
  }
  done(next);
}

function toPriceRow(
  product: ProductPrice,
  rates: Map<number, number>,
  addTaxes: boolean,
): ErpRow<PriceRecord> {
  const sku = (product.code ?? '').trim();
  const source = { row: `product.product ${product.id}` };
  if (!(product.list_price instanceof TrytonDecimal)) {
    return { ok: false, key: sku, reason: 'no list price in Tryton', source };
  }
  const net = product.list_price.toNumber();
  const rate = rates.get(product['template.']?.account_category ?? 0) ?? 0;
  const record: PriceRecord = { sku, price: addTaxes ? round2(net * (1 + rate)) : round2(net) };
  if (addTaxes) record.vatRate = round2(rate * 100);
  return { ok: true, record, source };
}

/**
 * The customer tax rate of each accounting category (Tryton takes a product's taxes from its
 * category): the sum of its percentage taxes; a fixed-amount tax cannot be folded into a price.
 */
async function categoryRates(rpc: TrytonClient): Promise<Map<number, number>> {
  const taxes = new Map<number, number>();
  for await (const page of searchReadAll<Tax>(rpc, 'account.tax', [], ['type', 'rate'])) {
    for (const tax of page) {
      if (tax.type === 'percentage' && tax.rate instanceof TrytonDecimal)
        taxes.set(tax.id, tax.rate.toNumber());
    }
  }
  const rates = new Map<number, number>();
  const fields = ['customer_taxes_used'];
  for await (const page of searchReadAll<Category>(
    rpc,
    'product.category',
    [['accounting', '=', true]],
    fields,
  )) {
    for (const category of page) {
      rates.set(
        category.id,
        category.customer_taxes_used.reduce((sum, id) => sum + (taxes.get(id) ?? 0), 0),
      );
    }
  }
  return rates;
}

function round2(value: number): number {
  return Math.round((value + Number.EPSILON) * 100) / 100;
}
