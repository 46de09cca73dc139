import { afterEach, describe, expect, it } from 'vitest';
import { openStore, type AccountIdentity, type Store } from '../../../src/store/index.js';
import {
  accountIdentity,
  compareAccounts,
  normaliseTaxId,
  settleStoreAccount,
} from '../../../src/sync/storeAccount.js';
import { StoreAccountMismatchError } from '../../../src/sync/StoreAccountMismatchError.js';

const DEMO = { id: 1, name: 'Demo Retail SRL', cui: 'RO12345678' };
const at = (baseUrl: string, account: Record<string, unknown> = DEMO): AccountIdentity =>
  accountIdentity(baseUrl, account);

describe('the company a store is bound to', () => {
  it('is the company, not the address: a new base URL of the same company is a move', () => {
    const bound = at('http://erp-proxy.local:8080/api/v2');
    expect(compareAccounts(bound, at('http://erp-proxy.local:8080/api/v2/'))).toBe('same');
    expect(compareAccounts(bound, at('https://shop.example.com/api/v2'))).toBe('moved');
    expect(compareAccounts(bound, at('HTTP://ERP-PROXY.local:8080/api/v2'))).toBe('same');
  });

  it('another company id, or the same id with another tax id (another platform), is another company', () => {
    const bound = at('https://a.example/api/v2');
    expect(compareAccounts(bound, at('https://a.example/api/v2', { ...DEMO, id: 2 }))).toBe('other');
    expect(compareAccounts(bound, at('https://b.example/api/v2', { ...DEMO, cui: 'RO87654321' }))).toBe(
      'other',
    );
    expect(
      compareAccounts(
        bound,
        at('https://a.example/api/v2', { id: 2, name: 'Second Shop SRL', cui: 'RO87654321' }),
      ),
    ).toBe('other');
  });

  it('compares tax ids without case, spaces or the country prefix, and only when both sides know one', () => {
    expect(normaliseTaxId('ro 12.345.678')).toBe(normaliseTaxId('12345678'));
    const bound = at('https://a.example/api/v2', { ...DEMO, cui: 'RO 12345678' });
    expect(compareAccounts(bound, at('https://a.example/api/v2', { ...DEMO, cui: '12345678' }))).toBe('same');
    const withoutTaxId = { ...at('https://a.example/api/v2'), taxId: null };
    expect(compareAccounts(withoutTaxId, at('https://b.example/api/v2'))).toBe('moved');
  });

  it('takes the id, else the tax id, else the name as the company id', () => {
    expect(at('https://a.example/api/v2').companyId).toBe('1');
    expect(at('https://a.example/api/v2', { cui: 'RO1', name: 'X' })).toMatchObject({
      companyId: 'RO1',
      taxId: 'RO1',
    });
    expect(at('https://a.example/api/v2', { name: 'X' })).toMatchObject({ companyId: 'X', taxId: null });
  });
});

describe('settling the store account', () => {
  let store: Store | undefined;
  afterEach(() => store?.close());

  it('binds, records a move once, fills in a missing tax id, and refuses another company', () => {
    store = openStore(':memory:');
    const first = settleStoreAccount(store, at('http://127.0.0.1:1/api/v2'), { bind: true });
    expect(first.bound).toMatchObject({ companyId: '1', taxId: 'RO12345678', previousBaseUrl: null });
    expect(first.movedFrom).toBeUndefined();

    // A dry run at a new address neither moves the store nor fails.
    const dry = settleStoreAccount(store, at('https://shop.example/api/v2'), { bind: false });
    expect(dry.movedFrom).toBeUndefined();
    expect(store.account.get()?.baseUrl).toBe('http://127.0.0.1:1/api/v2');

    const moved = settleStoreAccount(store, at('https://shop.example/api/v2'), { bind: true });
    expect(moved.movedFrom).toBe('http://127.0.0.1:1/api/v2');
    expect(moved.bound).toMatchObject({
      baseUrl: 'https://shop.example/api/v2',
      previousBaseUrl: 'http://127.0.0.1:1/api/v2',
      boundAt: first.bound!.boundAt,
    });
    expect(
      settleStoreAccount(store, at('https://shop.example/api/v2'), { bind: true }).movedFrom,
    ).toBeUndefined();

    expect(() =>
      settleStoreAccount(store!, at('https://shop.example/api/v2', { id: 2, name: 'Second Shop SRL' }), {
        bind: true,
      }),
    ).toThrow(StoreAccountMismatchError);
    expect(store.account.get()).toMatchObject({ companyId: '1', baseUrl: 'https://shop.example/api/v2' });
  });

  it('a store bound before tax ids were kept learns it at its next check', () => {
    store = openStore(':memory:');
    store.account.bind({ ...at('http://127.0.0.1:1/api/v2'), taxId: null });
    settleStoreAccount(store, at('http://127.0.0.1:1/api/v2'), { bind: true });
    expect(store.account.get()?.taxId).toBe('RO12345678');
    expect(() =>
      settleStoreAccount(store!, at('http://127.0.0.1:1/api/v2', { ...DEMO, cui: 'RO99999999' }), {
        bind: true,
      }),
    ).toThrow(StoreAccountMismatchError);
  });
});
