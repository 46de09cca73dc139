import { describe, expect, it } from 'vitest';
import type { ErpAdapter } from '../../src/erp/ErpAdapter.js';
import type {
  ErpRow,
  PriceRecord,
  ProductRecord,
  RecordSource,
  StockRecord,
} from '../../src/domain/records.js';

/**
 * The contract every ERP adapter passes (file now; SQL and RPC later): over the same logical
 * rows it reads the same records and the same rejects, in source order.
 *
 * A row is a map from canonical field name (sku, variant_sku, quantity, price, sale_price,
 * cost_price, vat_rate, name, ...) to its text as the ERP holds it; '' means the field is empty.
 */
export type ContractRow = Record<string, string>;

export interface ContractDataset {
  stock: ContractRow[];
  prices: ContractRow[];
  products: ContractRow[];
}

export type ContractKind = keyof ContractDataset;

export interface PreparedAdapter {
  adapter: ErpAdapter;
  /** Where row `index` of `kind` lies (file and line), when the adapter can say. */
  locate?: (kind: ContractKind, index: number) => RecordSource;
  cleanup?: () => Promise<void> | void;
}

/** Prepares the ERP source (files, tables, ...) holding exactly these rows, and an adapter over it. */
export type AdapterFactory = (dataset: ContractDataset) => Promise<PreparedAdapter>;

type Expected<T> = { index: number; record: T } | { index: number; reason: string; duplicateOf?: number };

const LONG_NAME = 'N'.repeat(192);

export const CONTRACT_STOCK: { row: ContractRow; expect: Expected<StockRecord> }[] = [
  { row: { sku: 'A-1', quantity: '10' }, expect: { index: 0, record: { sku: 'A-1', quantity: 10 } } },
  { row: { sku: 'A-2', quantity: '0' }, expect: { index: 1, record: { sku: 'A-2', quantity: 0 } } },
  {
    row: { sku: 'TS', variant_sku: 'TS-M', quantity: '4' },
    expect: { index: 2, record: { sku: 'TS', variantSku: 'TS-M', quantity: 4 } },
  },
  {
    row: { sku: 'TS', variant_sku: 'TS-L', quantity: '2' },
    expect: { index: 3, record: { sku: 'TS', variantSku: 'TS-L', quantity: 2 } },
  },
  { row: { sku: '', quantity: '5' }, expect: { index: 4, reason: 'missing sku' } },
  { row: { sku: 'B-1', quantity: 'abc' }, expect: { index: 5, reason: 'quantity is not a number: "abc"' } },
  {
    row: { sku: 'B-2', quantity: '-3' },
    expect: { index: 6, reason: 'quantity must be at least 0, got -3' },
  },
  {
    row: { sku: 'B-3', quantity: '2.5' },
    expect: { index: 7, reason: 'quantity must be a whole number, got 2.5' },
  },
  { row: { sku: 'A-1', quantity: '99' }, expect: { index: 8, reason: 'duplicate', duplicateOf: 0 } },
  {
    row: { sku: 'TS', variant_sku: 'TS-M', quantity: '1' },
    expect: { index: 9, reason: 'duplicate', duplicateOf: 2 },
  },
  { row: { sku: 'B-4', quantity: '' }, expect: { index: 10, reason: 'missing quantity' } },
  { row: { sku: ' C-1 ', quantity: ' 7 ' }, expect: { index: 11, record: { sku: 'C-1', quantity: 7 } } },
  { row: { sku: 'ȘAL-ț', quantity: '3' }, expect: { index: 12, record: { sku: 'ȘAL-ț', quantity: 3 } } },
];

/**
 * Every prices row carries `sale_price`: a CSV column is in every row or in none, and an empty
 * sale price means "no sale price" (null, cleared on the platform), unlike an empty price,
 * cost_price or vat_rate, which is not sent. A file without the field says nothing about it
 * (tested per adapter: the contract's rows cannot leave a CSV column out of one row only).
 */
export const CONTRACT_PRICES: { row: ContractRow; expect: Expected<PriceRecord> }[] = [
  {
    row: { sku: 'A-1', price: '12.50', sale_price: '9.99', cost_price: '7', vat_rate: '19' },
    expect: { index: 0, record: { sku: 'A-1', price: 12.5, salePrice: 9.99, costPrice: 7, vatRate: 19 } },
  },
  {
    row: { sku: 'A-2', price: '5', sale_price: '' },
    expect: { index: 1, record: { sku: 'A-2', price: 5, salePrice: null } },
  },
  {
    row: { sku: 'TS', variant_sku: 'TS-M', price: '30', sale_price: '', vat_rate: '9' },
    expect: { index: 2, record: { sku: 'TS', variantSku: 'TS-M', price: 30, salePrice: null, vatRate: 9 } },
  },
  {
    row: { sku: 'B-1', price: 'x', sale_price: '' },
    expect: { index: 3, reason: 'price is not a number: "x"' },
  },
  {
    row: { sku: 'B-2', price: '10', sale_price: '', vat_rate: '120' },
    expect: { index: 4, reason: 'vat_rate must be between 0 and 100, got 120' },
  },
  {
    row: { sku: 'B-3', sale_price: '-1' },
    expect: { index: 5, reason: 'sale_price must be at least 0, got -1' },
  },
  {
    row: { sku: 'B-4', price: '', sale_price: '', cost_price: '', vat_rate: '' },
    expect: { index: 6, record: { sku: 'B-4', salePrice: null } },
  },
  {
    row: { sku: 'A-2', price: '6', sale_price: '1' },
    expect: { index: 7, reason: 'duplicate', duplicateOf: 1 },
  },
  { row: { sku: '', price: '1', sale_price: '' }, expect: { index: 8, reason: 'missing sku' } },
  {
    row: { sku: 'TS', variant_sku: 'TS-L', sale_price: '25' },
    expect: { index: 9, record: { sku: 'TS', variantSku: 'TS-L', salePrice: 25 } },
  },
];

export const CONTRACT_PRODUCTS: { row: ContractRow; expect: Expected<ProductRecord> }[] = [
  {
    row: {
      sku: 'P-1',
      name: 'Pix albastru',
      price: '2.5',
      vat_rate: '19',
      status: 'active',
      ean: '5941234567890',
    },
    expect: {
      index: 0,
      record: {
        sku: 'P-1',
        name: 'Pix albastru',
        price: 2.5,
        vatRate: 19,
        status: 'active',
        ean: '5941234567890',
      },
    },
  },
  {
    row: { sku: 'P-2', name: LONG_NAME },
    expect: { index: 1, reason: 'name is longer than 191 characters (192)' },
  },
  { row: { sku: 'P-3', name: '' }, expect: { index: 2, reason: 'missing name' } },
  {
    row: { sku: 'P-4', name: 'Caiet A5', stock_quantity: '12', weight_grams: '250' },
    expect: { index: 3, record: { sku: 'P-4', name: 'Caiet A5', stockQuantity: 12, weightGrams: 250 } },
  },
];

export const CONTRACT_DATASET: ContractDataset = {
  stock: CONTRACT_STOCK.map((c) => c.row),
  prices: CONTRACT_PRICES.map((c) => c.row),
  products: CONTRACT_PRODUCTS.map((c) => c.row),
};

async function collect<T>(rows: AsyncIterable<ErpRow<T>>): Promise<ErpRow<T>[]> {
  const out: ErpRow<T>[] = [];
  for await (const row of rows) out.push(row);
  return out;
}

function read(adapter: ErpAdapter, kind: ContractKind): AsyncIterable<ErpRow<unknown>> {
  return kind === 'stock' ? adapter.stock() : kind === 'prices' ? adapter.prices() : adapter.products();
}

function expectRows<T>(
  kind: ContractKind,
  rows: ErpRow<T>[],
  cases: { row: ContractRow; expect: Expected<T> }[],
  locate: PreparedAdapter['locate'],
): void {
  // Shape first, so that a failure says which row went wrong.
  const summary = rows.map((r) => (r.ok ? { record: r.record } : { key: r.key, reason: r.reason }));
  const expected = cases.map(({ row, expect: e }) => {
    if ('record' in e) return { record: e.record };
    const key =
      e.reason === 'missing sku' ? undefined : row.variant_sku ? `${row.sku}/${row.variant_sku}` : row.sku;
    return { key, reason: e.reason, duplicateOf: 'duplicateOf' in e ? e.duplicateOf : undefined };
  });
  expect(summary.length, `${kind}: rows read`).toBe(expected.length);
  expected.forEach((want, i) => {
    const got = summary[i]!;
    if ('record' in want) {
      expect(got, `${kind} row ${i}`).toEqual(want);
      return;
    }
    expect('reason' in got, `${kind} row ${i} should be a reject`).toBe(true);
    const reject = got as { key: string; reason: string };
    if (want.duplicateOf !== undefined) {
      const first = locate?.(kind, want.duplicateOf);
      expect(reject.reason, `${kind} row ${i}`).toMatch(/^duplicate of /);
      if (first?.line !== undefined) expect(reject.reason).toContain(`line ${first.line}`);
    } else {
      expect(reject.reason, `${kind} row ${i}`).toBe(want.reason);
    }
    if (want.key !== undefined) expect(reject.key, `${kind} row ${i} key`).toBe(want.key);
    else expect(reject.key, `${kind} row ${i} key`).not.toBe('');
  });
  if (locate) {
    rows.forEach((row, i) => expect(row.source, `${kind} row ${i} source`).toEqual(locate(kind, i)));
    rows.forEach((row, i) => {
      const where = locate(kind, i);
      if (!row.ok && expected[i]!.key === undefined && where.file && where.line !== undefined) {
        expect(row.key).toBe(`${where.file}:${where.line}`);
      }
    });
  }
}

/** Registers the contract's tests for one adapter implementation. */
export function describeErpAdapterContract(name: string, factory: AdapterFactory): void {
  describe(`ErpAdapter contract: ${name}`, () => {
    async function withAdapter(dataset: ContractDataset, body: (prepared: PreparedAdapter) => Promise<void>) {
      const prepared = await factory(dataset);
      try {
        await body(prepared);
      } finally {
        await prepared.adapter.close();
        await prepared.cleanup?.();
      }
    }

    it('reads stock records and rejects every bad row with its reason, in source order', async () => {
      await withAdapter(CONTRACT_DATASET, async ({ adapter, locate }) => {
        expectRows('stock', await collect(adapter.stock()), CONTRACT_STOCK, locate);
      });
    });

    it('reads price records and rejects every bad row with its reason', async () => {
      await withAdapter(CONTRACT_DATASET, async ({ adapter, locate }) => {
        expectRows('prices', await collect(adapter.prices()), CONTRACT_PRICES, locate);
      });
    });

    it('reads product records and rejects names over the limit', async () => {
      await withAdapter(CONTRACT_DATASET, async ({ adapter, locate }) => {
        expectRows('products', await collect(adapter.products()), CONTRACT_PRODUCTS, locate);
      });
    });

    it('reads the same rows again on a second pass, also after an abandoned one', async () => {
      await withAdapter(CONTRACT_DATASET, async ({ adapter }) => {
        for await (const _row of adapter.stock()) break;
        const first = await collect(adapter.stock());
        const second = await collect(adapter.stock());
        expect(second).toEqual(first);
        expect(first).toHaveLength(CONTRACT_STOCK.length);
      });
    });

    it('yields nothing, without failing, for a source with no rows', async () => {
      await withAdapter({ stock: [], prices: [], products: [] }, async ({ adapter }) => {
        for (const kind of ['stock', 'prices', 'products'] as const) {
          expect(await collect(read(adapter, kind)), kind).toEqual([]);
        }
        expect((await adapter.check()).ok).toBe(true);
      });
    });

    it('accepts a commit after a complete read and reads the same rows afterwards', async () => {
      await withAdapter(CONTRACT_DATASET, async ({ adapter }) => {
        const read = adapter.prices();
        const before = await collect(read);
        if (read.receipt) {
          await expect(adapter.commit(read.receipt)).resolves.toBeUndefined();
          await expect(adapter.commit(read.receipt)).resolves.toBeUndefined();
        }
        expect(await collect(adapter.prices())).toEqual(before);
      });
    });

    it('passes its own check over a prepared source', async () => {
      await withAdapter(CONTRACT_DATASET, async ({ adapter }) => {
        const check = await adapter.check();
        expect(check.ok).toBe(true);
        expect(check.details.length).toBeGreaterThan(0);
      });
    });
  });
}
