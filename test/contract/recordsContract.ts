import { describe, expect, it } from 'vitest';
import { describeSource, type ErpRow } from '../../src/domain/records.js';
import type { ErpAdapter } from '../../src/erp/ErpAdapter.js';
import type { ErpRead, ReadReceipt } from '../../src/erp/ErpRead.js';
import {
  CONTRACT_PRICES,
  CONTRACT_PRODUCTS,
  CONTRACT_SEED,
  CONTRACT_STOCK,
  EMPTY_SEED,
  type ContractKind,
  type ContractRow,
  type Expected,
} from './contractData.js';
import { collect, withSource, type ContractSetUp, type ContractSource } from './contractSource.js';

/** One read; `after` is the last committed read's receipt, as the pipelines pass it from the store. */
function read(adapter: ErpAdapter, kind: ContractKind, after: ReadReceipt | null = null): ErpRead<unknown> {
  return kind === 'stock'
    ? adapter.stock(after)
    : kind === 'prices'
      ? adapter.prices(after)
      : adapter.products(after);
}

function expectRows<T>(
  kind: ContractKind,
  rows: ErpRow<T>[],
  cases: { row: ContractRow; expect: Expected<T> }[],
  locate: ContractSource['locate'],
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
  // Every row names where it came from (file and line, or a row key), and a row without a key of
  // its own is keyed by that place, so its reject can be closed once the row reads well.
  rows.forEach((row, i) => {
    expect(describeSource(row.source), `${kind} row ${i} source`).not.toBe('');
    if (!row.ok && expected[i]!.key === undefined) expect(row.key).toBe(describeSource(row.source));
  });
  if (locate)
    rows.forEach((row, i) => expect(row.source, `${kind} row ${i} source`).toEqual(locate(kind, i)));
}

export function describeRecordsContract(name: string, setUp: ContractSetUp): void {
  describe(`ErpAdapter contract, records: ${name}`, () => {
    it('reads stock records and rejects every bad row with its reason, in source order', () =>
      withSource(setUp, CONTRACT_SEED, async ({ open, locate }) => {
        expectRows('stock', await collect((await open()).stock()), CONTRACT_STOCK, locate);
      }));

    it('reads price records and rejects every bad row with its reason', () =>
      withSource(setUp, CONTRACT_SEED, async ({ open, locate }) => {
        expectRows('prices', await collect((await open()).prices()), CONTRACT_PRICES, locate);
      }));

    it('reads product records and rejects names over the limit', () =>
      withSource(setUp, CONTRACT_SEED, async ({ open, locate }) => {
        expectRows('products', await collect((await open()).products()), CONTRACT_PRODUCTS, locate);
      }));

    it('reads the same rows again on a second pass, also after an abandoned one', () =>
      withSource(setUp, CONTRACT_SEED, async ({ open }) => {
        const adapter = await open();
        for await (const _row of adapter.stock()) break;
        const first = await collect(adapter.stock());
        const second = await collect(adapter.stock());
        expect(second).toEqual(first);
        expect(first).toHaveLength(CONTRACT_STOCK.length);
      }));

    it('yields nothing, without failing, for a source with no rows', () =>
      withSource(setUp, EMPTY_SEED, async ({ open }) => {
        const adapter = await open();
        for (const kind of ['stock', 'prices', 'products'] as const) {
          expect(await collect(read(adapter, kind)), kind).toEqual([]);
        }
        expect((await adapter.check()).ok).toBe(true);
      }));

    it('finishes a read on commit from another instance: a delta is not read again, a snapshot is', () =>
      withSource(setUp, CONTRACT_SEED, async ({ open }) => {
        const reader = await open();
        const committer = await open();
        for (const kind of ['stock', 'prices'] as const) {
          const first = read(reader, kind);
          const rows = await collect(first);
          expect(rows.length, kind).toBeGreaterThan(0);
          if (reader.capabilities.reads[kind] === 'delta') {
            expect(first.receipt, `${kind}: a delta read must say what to commit`).not.toBeNull();
            await committer.commit(first.receipt!);
            await committer.commit(first.receipt!); // a repeated commit is harmless
            expect(await collect(read(reader, kind, first.receipt)), kind).toEqual([]);
          } else {
            if (first.receipt) await committer.commit(first.receipt);
            expect(await collect(read(reader, kind, first.receipt)), kind).toEqual(rows);
          }
        }
      }));

    it('reads what the ERP holds after a new export, committed or not', () =>
      withSource(setUp, CONTRACT_SEED, async ({ open, seed }) => {
        const adapter = await open();
        const first = adapter.stock();
        await collect(first);
        if (first.receipt) await adapter.commit(first.receipt);
        await seed({ stock: [{ sku: 'NEW-1', quantity: '5' }] });
        const rows = await collect(adapter.stock(first.receipt));
        expect(rows.map((r) => (r.ok ? r.record : r.reason))).toEqual([{ sku: 'NEW-1', quantity: 5 }]);
      }));

    it('passes its own check over a prepared source', () =>
      withSource(setUp, CONTRACT_SEED, async ({ open }) => {
        const check = await (await open()).check();
        expect(check.ok).toBe(true);
        expect(check.details.length).toBeGreaterThan(0);
      }));
  });
}
