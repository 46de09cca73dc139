import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TrytonClient } from '../../../../src/erp/tryton/TrytonClient.js';
import { CalendarDate, TrytonDecimal } from '../../../../src/erp/tryton/trytonValues.js';
import { captureLog, type CapturedLog } from '../../../support/logCapture.js';
import { startTryton, TRYTON_SEED, type TrytonServer } from '../../../support/trytonServer.js';

let tryton: TrytonServer;
let log: CapturedLog;

beforeAll(async () => {
  tryton = await startTryton();
}, 600_000);
afterAll(async () => {
  await tryton?.stop();
});
beforeEach(() => {
  log = captureLog();
});

function client(overrides: { password?: string; user?: string } = {}): TrytonClient {
  return new TrytonClient({
    url: tryton.url,
    database: tryton.database,
    user: overrides.user ?? tryton.user,
    password: overrides.password ?? tryton.password,
    context: { company: TRYTON_SEED.companyId },
    logger: log.logger,
    timeoutMs: 10_000,
  });
}

interface ProductRow {
  code: string;
  list_price: unknown;
  create_date: unknown;
  'template.': { id: number };
}

describe('Tryton JSON-RPC client', { timeout: 120_000 }, () => {
  it('logs in, sends the context with every call and converts Decimal and datetime values', async () => {
    const rpc = client();
    try {
      const rows = await rpc.model<ProductRow[]>('product.product', 'search_read', [
        [['code', '=', 'SKU-0002']],
        0,
        null,
        null,
        ['code', 'list_price', 'create_date', 'template.id'],
      ]);
      expect(rows).toHaveLength(1);
      const [row] = rows;
      // Without the company in the context Tryton reads list_price as null.
      expect(row?.list_price).toBeInstanceOf(TrytonDecimal);
      expect((row?.list_price as TrytonDecimal).toNumber()).toBe(TRYTON_SEED.listPrice(1));
      expect(row?.create_date).toBeInstanceOf(Date);
      expect(Math.abs((row?.create_date as Date).getTime() - Date.now())).toBeLessThan(366 * 86_400_000);
    } finally {
      await rpc.close();
    }
  });

  it('writes Decimal values back exactly and reads dates as calendar days', async () => {
    const rpc = client();
    try {
      const [product] = await rpc.model<ProductRow[]>('product.product', 'search_read', [
        [['code', '=', 'SKU-0003']],
        0,
        1,
        null,
        ['template.id'],
      ]);
      const templateId = product!['template.'].id;
      await rpc.model('product.template', 'write', [
        [templateId],
        { list_price: new TrytonDecimal('123.45') },
      ]);
      const [template] = await rpc.model<{ list_price: TrytonDecimal }[]>('product.template', 'read', [
        [templateId],
        ['list_price'],
      ]);
      expect(template?.list_price.text).toMatch(/^123\.450*$/);
      const [inventory] = await rpc.model<{ date: unknown }[]>('stock.inventory', 'search_read', [
        [],
        0,
        1,
        null,
        ['date'],
      ]);
      expect(inventory?.date).toBeInstanceOf(CalendarDate);
      expect(String(inventory?.date)).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    } finally {
      await rpc.close();
    }
  });

  it('maps a UserError to a permanent rejection with Tryton message', async () => {
    const rpc = client();
    try {
      const failure = await rpc.model('sale.sale', 'create', [[{}]]).catch((error: unknown) => error);
      expect(failure).toMatchObject({ code: 'erp_rejected', retryable: false, fatal: false });
      expect((failure as Error).message).toContain('A value is required for field "Party" in "Sale"');
    } finally {
      await rpc.close();
    }
  });

  it('maps a method Tryton does not expose to an internal error, not a retry', async () => {
    const rpc = client();
    try {
      const failure = await rpc
        .model('product.product', 'products_by_location', [[1]])
        .catch((error: unknown) => error);
      expect(failure).toMatchObject({ code: 'internal', retryable: false });
    } finally {
      await rpc.close();
    }
  });

  it('refuses a wrong password as fatal, without the password anywhere', async () => {
    const secret = 'wrong-pw-3f9a1c';
    const rpc = client({ password: secret });
    try {
      const failure = await rpc.login().catch((error: unknown) => error);
      expect(failure).toMatchObject({ code: 'erp_auth', fatal: true, retryable: false });
      expect(JSON.stringify(failure)).not.toContain(secret);
      expect((failure as Error).message).not.toContain(secret);
      expect(String((failure as Error).stack)).not.toContain(secret);
      expect(log.text()).not.toContain(secret);
    } finally {
      await rpc.close();
    }
  });

  it('logs in again once when the session is gone (server restored) and carries on', async () => {
    const rpc = client();
    try {
      await rpc.login();
      await rpc.model('product.product', 'search_count', [[]]);
      await tryton.restore(); // sessions live in the database: the restored one knows none
      const count = await rpc.model<number>('product.product', 'search_count', [[['code', 'like', 'SKU-%']]]);
      expect(count).toBe(20);
      expect(
        log.lines().filter((line) => line.msg === 'Tryton session refused, logging in again'),
      ).toHaveLength(1);
      expect(log.text()).not.toContain(tryton.password);
    } finally {
      await rpc.close();
    }
  });

  it('gives up as fatal when the fresh login is refused too (the user is gone meanwhile)', async () => {
    const admin = client();
    const secret = 'sync-pw-7c2e41';
    try {
      await admin.model('res.user', 'create', [[{ name: 'Sync', login: 'sync', password: secret }]]);
      const sync = client({ user: 'sync', password: secret });
      await sync.model('res.user', 'get_preferences', [true]);
      await tryton.restore(); // the seeded database has neither the session nor the user
      const failure = await sync
        .model('res.user', 'get_preferences', [true])
        .catch((error: unknown) => error);
      expect(failure).toMatchObject({ code: 'erp_auth', fatal: true, retryable: false });
      expect(
        log.lines().filter((line) => line.msg === 'Tryton session refused, logging in again'),
      ).toHaveLength(1);
      expect(log.text()).not.toContain(secret);
      expect(JSON.stringify(failure)).not.toContain(secret);
      await sync.close();
    } finally {
      await admin.close();
    }
  });

  it('reports a stopped server as retryable', async () => {
    const rpc = new TrytonClient({
      url: 'http://127.0.0.1:9/',
      database: 'erp',
      user: 'admin',
      password: 'x',
      logger: log.logger,
      timeoutMs: 2_000,
    });
    const failure = await rpc.login().catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 'erp_unavailable', retryable: true, fatal: false });
    expect((failure as Error).message).toContain('ECONNREFUSED');
    await rpc.close();
  });
});
