import { mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../../../src/config.js';
import type { PlatformOrder } from '../../../../../src/domain/orders.js';
import { FileOrderExchange } from '../../../../../src/erp/file/orders/FileOrderExchange.js';
import { silentLogger } from '../../../../../src/logger.js';

function order(id: number, extra: Partial<PlatformOrder> = {}): PlatformOrder {
  return {
    id,
    number: `N${id}`,
    status: 'new',
    paymentStatus: 'unpaid',
    currency: 'RON',
    sourceOrderId: null,
    customer: {
      id: 1,
      name: 'A',
      email: null,
      phone: null,
      companyName: null,
      cui: null,
      regCom: null,
      address: { street: 'Str. Lunga 1', city: 'Cluj', postalCode: '400001', county: null, country: 'RO' },
    },
    items: [
      {
        productId: 1,
        variantId: null,
        sku: 'SKU-1',
        name: 'x',
        quantity: 2,
        unitPrice: 5,
        taxRate: 19,
        total: 10,
      },
    ],
    subtotal: 10,
    shippingTotal: 0,
    discountTotal: 0,
    taxTotal: 1.6,
    total: 10,
    awbNumber: null,
    invoiceNumber: null,
    createdAt: '2026-11-21T06:00:00Z',
    updatedAt: '2026-11-21T06:00:00Z',
    raw: { id, number: `N${id}`, status: 'new', note: 'a < b & c' },
    ...extra,
  };
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'orders-file-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function exchange(outbox: Record<string, unknown> = {}): FileOrderExchange {
  const config = parseConfig({
    api: { baseUrl: 'http://127.0.0.1:1/api/v2', apiKey: 'k' },
    erp: { type: 'file', path: dir, outbox },
  });
  if (config.erp.type !== 'file') throw new Error('file config expected');
  return new FileOrderExchange(config.erp, silentLogger());
}

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

describe('file order outbox', () => {
  it('writes the order as the API returned it plus the import time, and finds it on a second import', async () => {
    const ex = exchange();
    const first = await ex.importOrder(order(7));
    expect(first).toEqual({ erpRef: '7.json', alreadyImported: false });
    const written = JSON.parse(await readFile(join(dir, 'outbox/orders/7.json'), 'utf8'));
    expect(written.order).toEqual({ id: 7, number: 'N7', status: 'new', note: 'a < b & c' });
    expect(Date.parse(written.imported_at)).not.toBeNaN();
    expect(written.customer).toEqual({
      id: 1,
      name: 'A',
      email: null,
      phone: null,
      company_name: null,
      cui: null,
      reg_com: null,
      address: { street: 'Str. Lunga 1', city: 'Cluj', postal_code: '400001', county: null, country: 'RO' },
    });
    const second = await ex.importOrder(order(7));
    expect(second).toEqual({ erpRef: '7.json', alreadyImported: true });
    expect(await readdir(join(dir, 'outbox/orders'))).toEqual(['7.json']);
  });

  it('writes XML by option, escaped, and an earlier JSON import still counts', async () => {
    const xml = exchange({ format: 'xml' });
    await xml.importOrder(order(8));
    const text = await readFile(join(dir, 'outbox/orders/8.xml'), 'utf8');
    expect(text).toContain('<order_import>');
    expect(text).toContain('<note>a &lt; b &amp; c</note>');
    expect(text).toContain('<customer>');
    await exchange().importOrder(order(9));
    expect(await xml.importOrder(order(9))).toEqual({ erpRef: '9.json', alreadyImported: true });
  });

  it('lets exactly one of two concurrent imports of one order write it', async () => {
    const results = await Promise.all([exchange().importOrder(order(11)), exchange().importOrder(order(11))]);
    expect(results.map((r) => r.alreadyImported).sort()).toEqual([false, true]);
    expect(await readdir(join(dir, 'outbox/orders'))).toEqual(['11.json']);
  });

  it('counts an order the ERP moved into done/ as imported', async () => {
    const ex = exchange();
    await ex.importOrder(order(12));
    await mkdir(join(dir, 'outbox/orders/done'), { recursive: true });
    await rename(join(dir, 'outbox/orders/12.json'), join(dir, 'outbox/orders/done/12.json'));
    expect(await ex.importOrder(order(12))).toEqual({ erpRef: '12.json', alreadyImported: true });
    expect(await readdir(join(dir, 'outbox/orders'))).toEqual(['done']);
  });

  it('locates an order the ERP moved into done/ there, and an XML one imported before a switch to JSON', async () => {
    const ex = exchange();
    await ex.importOrder(order(14));
    await mkdir(join(dir, 'outbox/orders/done'), { recursive: true });
    await rename(join(dir, 'outbox/orders/14.json'), join(dir, 'outbox/orders/done/14.json'));
    expect(await ex.locateOrder(14)).toMatchObject({
      erpRef: '14.json',
      place: join(dir, 'outbox/orders/done/14.json'),
      facts: { movedTo: 'done' },
    });
    await exchange({ format: 'xml' }).importOrder(order(15));
    expect(await ex.locateOrder(15)).toMatchObject({ erpRef: '15.xml', facts: { movedTo: null } });
    expect(await ex.locateOrder(16)).toBeNull();
  });

  it('leaves no temporary file behind', async () => {
    const ex = exchange();
    await Promise.all([1, 2, 3, 4, 5].map((id) => ex.importOrder(order(id))));
    const names = await readdir(join(dir, 'outbox/orders'));
    expect(names.sort()).toEqual(['1.json', '2.json', '3.json', '4.json', '5.json']);
  });

  it('writes one update file per change seq, and the same seq twice stays one file', async () => {
    const ex = exchange();
    const change = {
      orderId: 7,
      erpRef: '7.json',
      seq: 1,
      status: 'cancelled' as const,
      previousStatus: 'new' as const,
    };
    await ex.updateOrder(order(7, { status: 'cancelled' }), change);
    await ex.updateOrder(order(7, { status: 'cancelled' }), change);
    await ex.updateOrder(order(7, { paymentStatus: 'paid' }), {
      orderId: 7,
      erpRef: '7.json',
      seq: 2,
      paymentStatus: 'paid',
    });
    expect((await readdir(join(dir, 'outbox/updates'))).sort()).toEqual(['7-1.json', '7-2.json']);
    const first = JSON.parse(await readFile(join(dir, 'outbox/updates/7-1.json'), 'utf8'));
    expect(first).toMatchObject({ order_id: 7, status: 'cancelled', previous_status: 'new', seq: 1 });
  });

  it('refuses an order with a SKU the ERP does not know when requireKnownSkus is on', async () => {
    await writeFile(join(dir, 'stock.csv'), 'sku;quantity\nSKU-2;4\n');
    const ex = exchange({ requireKnownSkus: true });
    await expect(ex.importOrder(order(3))).rejects.toMatchObject({
      code: 'erp_rejected',
      message: expect.stringContaining('SKU-1'),
    });
    await writeFile(join(dir, 'stock.csv'), 'sku;quantity\nSKU-2;4\nSKU-1;1\n');
    expect((await ex.importOrder(order(3))).alreadyImported).toBe(false);
  });

  it('writes AWB and invoice results for the ERP', async () => {
    const ex = exchange();
    await ex.recordFeedback({
      eventId: 'e1',
      orderId: 7,
      kind: 'awb',
      awb: { number: 'TEST1', courier: 'fan', codAmount: 10 },
    });
    await ex.recordFeedback({
      eventId: 'e2',
      orderId: 7,
      kind: 'invoiced',
      invoice: { series: 'INV', number: 3, total: 10 },
    });
    const awb = JSON.parse(await readFile(join(dir, 'outbox/results/7-awb.json'), 'utf8'));
    const invoice = JSON.parse(await readFile(join(dir, 'outbox/results/7-invoiced.json'), 'utf8'));
    expect(awb.awb).toEqual({ number: 'TEST1', courier: 'fan', cod_amount: 10 });
    expect(invoice.invoice).toEqual({ series: 'INV', number: 3, total: 10 });
  });
});

describe('events file', () => {
  it('reads CSV events after the checkpoint and rejects bad rows with their line', async () => {
    await writeFile(
      join(dir, 'events.csv'),
      'order_id;event;courier;weight;parcels;note;labels\n5;shipped;;;;sent;a|b\n6;awb;sameday;1.5;2;;\n7;teleported;;;;;\n',
    );
    const ex = exchange();
    const all = await collect(ex.orderEvents(null));
    expect(all).toHaveLength(3);
    expect(all[0]!.row).toMatchObject({
      ok: true,
      record: { orderId: 5, kind: 'shipped', note: 'sent', labels: ['a', 'b'] },
    });
    expect(all[1]!.row).toMatchObject({
      ok: true,
      record: { orderId: 6, kind: 'awb', courier: 'sameday', weight: 1.5, parcels: 2 },
    });
    expect(all[2]!.row).toMatchObject({ ok: false, source: { file: 'events.csv', line: 4 } });
    const after = await collect(ex.orderEvents(all[1]!.checkpoint));
    expect(after.map((e) => e.row.ok)).toEqual([false]);
    expect(await collect(ex.orderEvents(all[2]!.checkpoint))).toEqual([]);
  });

  it('gives the same event the same id on every read and starts over when the file is replaced', async () => {
    await writeFile(
      join(dir, 'events.json'),
      JSON.stringify([
        { order_id: 1, event: 'invoiced' },
        { erp_ref: '2.json', event: 'confirmed' },
      ]),
    );
    const ex = exchange();
    const first = await collect(ex.orderEvents(null));
    const again = await collect(ex.orderEvents(null));
    expect(first.map((e) => e.row.ok && e.row.record.eventId)).toEqual(
      again.map((e) => e.row.ok && e.row.record.eventId),
    );
    await writeFile(join(dir, 'events.json'), JSON.stringify([{ order_id: 9, event: 'cancelled' }]));
    const replaced = await collect(ex.orderEvents(first[1]!.checkpoint));
    expect(replaced).toHaveLength(1);
    expect(replaced[0]!.row).toMatchObject({ ok: true, record: { orderId: 9, kind: 'cancelled' } });
  });
});

describe('bad input in the events file', () => {
  const reasons = (items: { row: { ok: boolean } & Record<string, unknown> }[]) =>
    items.map((e) =>
      e.row.ok ? 'ok' : `${String((e.row.source as { line: number }).line)} ${String(e.row.reason)}`,
    );

  it('turns each bad row into a reject with its line and reason, and the others go on', async () => {
    const labels = Array.from({ length: 5_000 }, (_, i) => `label-${i}`).join('|');
    await writeFile(
      join(dir, 'events.csv'),
      [
        'order_id,erp_ref,event,note,labels',
        '5,,teleported,,',
        'abc,,shipped,,',
        ',,shipped,,',
        `6,,shipped,${'n'.repeat(501)},`,
        `7,,shipped,,${'x'.repeat(61)}`,
        `8,,confirmed,${'ă'.repeat(500)},${labels}`,
        ',NO-SUCH-REF,shipped,,',
      ].join('\n'),
    );
    const all = await collect(exchange().orderEvents(null));
    const out = reasons(all);
    expect(out).toHaveLength(7);
    expect(out[0]).toMatch(/^2 unknown event "teleported"/);
    expect(out[1]).toMatch(/^3 order_id "abc" is not an integer/);
    expect(out[2]).toMatch(/^4 neither order_id nor erp_ref/);
    expect(out[3]).toMatch(/^5 note has 501 characters \(at most 500\)/);
    expect(out[4]).toMatch(/^6 label "x+\.\.\." is longer than 60 characters/);
    // 500 characters (not UTF-16 units or bytes) is within the limit; a long list of labels is
    // the platform's to judge (a 413 or 422 there is a reject of that event).
    expect(out[5]).toBe('ok');
    expect(all[5]!.row).toMatchObject({ ok: true, record: { orderId: 8 } });
    expect(out[6]).toBe('ok'); // an erp_ref that matches nothing is decided by the pipeline
    expect(all.every((e) => e.row.ok || e.row.source?.file === 'events.csv')).toBe(true);
  });

  it('rejects a broken CSV line by name and stops before it without losing what follows', async () => {
    await writeFile(
      join(dir, 'events.csv'),
      'order_id,event,note\n1,confirmed,ok\n2,shipped,"bad"x\n3,awb,fine\n',
    );
    const ex = exchange();
    const all = await collect(ex.orderEvents(null));
    expect(reasons(all)).toEqual(['ok', expect.stringMatching(/^3 not valid CSV: /)]);
    // The checkpoint stays after the last good row: read again until the ERP repairs the file.
    expect(all[1]!.checkpoint).toBe(all[0]!.checkpoint);
    await writeFile(
      join(dir, 'events.csv'),
      'order_id,event,note\n1,confirmed,ok\n2,shipped,"bad x"\n3,awb,fine\n',
    );
    const repaired = await collect(ex.orderEvents(all[1]!.checkpoint));
    expect(repaired.map((e) => e.row.ok && e.row.record.orderId)).toEqual([2, 3]);
  });

  it('streams a large CSV file in order, and a broken line at its end still comes after every good row', async () => {
    const rows = Array.from({ length: 5_000 }, (_, i) => `${i + 1},invoiced`);
    await writeFile(join(dir, 'events.csv'), `order_id,event\n${rows.join('\n')}\n5001,shipped,"x"y\n`);
    const all = await collect(exchange().orderEvents(null));
    expect(all).toHaveLength(5_001);
    expect(all.slice(0, 5_000).map((e) => e.row.ok && e.row.record.orderId)).toEqual(
      Array.from({ length: 5_000 }, (_, i) => i + 1),
    );
    expect(all[4_999]!.row.source).toEqual({ file: 'events.csv', line: 5_001 });
    expect(reasons(all.slice(5_000))).toEqual([expect.stringMatching(/^5002 not valid CSV/)]);
    // Stopping early (a run aborted) leaves nothing open that keeps the test from ending.
    let taken = 0;
    for await (const _event of exchange().orderEvents(null)) if (++taken === 3) break;
    expect(taken).toBe(3);
  });

  it('rejects a JSON events file that does not parse, and a bad NDJSON line alone', async () => {
    await writeFile(join(dir, 'events.json'), '[{"order_id": 1, "event": "invoiced"},');
    const broken = await collect(exchange().orderEvents('events.json:4:abc'));
    expect(reasons(broken)).toEqual([expect.stringMatching(/^1 not valid JSON/)]);
    expect(broken[0]!.checkpoint).toBe('events.json:4:abc');

    await writeFile(
      join(dir, 'events.json'),
      '{"order_id": 1, "event": "invoiced"}\n{"order_id": 2, "event"\n{"order_id": 3, "event": "paid"}\n',
    );
    const ndjson = await collect(exchange().orderEvents(null));
    expect(reasons(ndjson)).toEqual(['ok', '2 not valid JSON', 'ok']);
  });
});

describe('inbox of ERP-origin orders', () => {
  it('reads orders, rejects invalid files and moves a created order to done/', async () => {
    const inbox = join(dir, 'inbox/orders');
    await mkdir(inbox, { recursive: true });
    await writeFile(
      join(inbox, 'a.json'),
      JSON.stringify({
        source_order_id: 'ERP-1',
        customer: { name: 'B', email: 'b@x.ro' },
        items: [{ sku: 'S', quantity: 2 }],
      }),
    );
    await writeFile(
      join(inbox, 'b.json'),
      JSON.stringify({ source_order_id: 'ERP-2', customer_id: 4, items: [] }),
    );
    await writeFile(join(inbox, 'c.json'), '{oops');
    const ex = exchange();
    const rows = await collect(ex.outgoingOrders(null));
    expect(rows.map((r) => r.row.ok)).toEqual([true, false, false]);
    expect(rows[0]!.row).toMatchObject({
      ok: true,
      record: { sourceOrderId: 'ERP-1', customer: { email: 'b@x.ro' }, items: [{ sku: 'S', quantity: 2 }] },
    });
    expect(rows[1]!.row).toMatchObject({ ok: false, key: 'ERP-2', reason: expect.stringContaining('items') });
    const first = rows[0]!.row;
    if (!first.ok) throw new Error('ERP-1 should read');
    // Another instance (another run, another process) finishes what this one read.
    await exchange().recordOutgoingOrder(first.record, 99);
    expect(await readdir(join(inbox, 'done'))).toEqual(['a.json']);
    const result = JSON.parse(await readFile(join(dir, 'outbox/results/created-ERP-1.json'), 'utf8'));
    expect(result).toMatchObject({ source_order_id: 'ERP-1', platform_order_id: 99 });
  });
});
