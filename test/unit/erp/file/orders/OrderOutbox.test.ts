import { link, mkdir, mkdtemp, readdir, rename, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../../../src/config.js';
import { OrderOutbox } from '../../../../../src/erp/file/orders/OrderOutbox.js';
import { OutboxListing } from '../../../../../src/erp/file/orders/OutboxListing.js';
import { orderExchangePaths } from '../../../../../src/erp/file/orders/orderExchangePaths.js';
import { contractOrder } from '../../../../contract/contractData.js';

let dir: string;
let ordersDir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'outbox-listing-'));
  ordersDir = join(dir, 'outbox', 'orders');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The outbox of the drop folder, its listing answering for `maxAgeMs`. */
function outbox(maxAgeMs: number): OrderOutbox {
  const config = parseConfig({
    api: { baseUrl: 'http://127.0.0.1:1/api/v2', apiKey: 'k' },
    erp: { type: 'file', path: dir },
  });
  if (config.erp.type !== 'file') throw new Error('file config expected');
  return new OrderOutbox(orderExchangePaths(config.erp), 'json', undefined, maxAgeMs);
}

/** Another process's import of `id`: a complete file linked into the outbox. */
async function importedElsewhere(id: number, into = ordersDir): Promise<void> {
  await mkdir(into, { recursive: true });
  const temp = join(into, `.tmp-other-${id}`);
  await writeFile(temp, '{"other":true}\n');
  await link(temp, join(into, `${id}.json`));
  await unlink(temp);
}

async function allFiles(): Promise<string[]> {
  const names = (await readdir(ordersDir, { recursive: true })) as string[];
  return names.filter((name) => /\.(json|xml)$/.test(name)).sort();
}

describe('the order outbox through its folders listing', () => {
  it('imports once when another process wrote the order after the listing was read: the no-replace write finds it', async () => {
    const ours = outbox(60_000);
    // The listing is read here, with no order 31 anywhere.
    expect(await ours.importOrder(contractOrder(30))).toEqual({ erpRef: '30.json', alreadyImported: false });
    await importedElsewhere(31);
    expect(await ours.importOrder(contractOrder(31))).toEqual({ erpRef: '31.json', alreadyImported: true });
    expect(await allFiles()).toEqual(['30.json', '31.json']);
  });

  it('imports once when another process wrote the order in the other format after the listing was read', async () => {
    const ours = outbox(60_000);
    expect(await ours.importOrder(contractOrder(35))).toEqual({ erpRef: '35.json', alreadyImported: false });
    await importedElsewhere(36);
    await rename(join(ordersDir, '36.json'), join(ordersDir, '36.xml'));
    expect(await ours.importOrder(contractOrder(36))).toEqual({ erpRef: '36.xml', alreadyImported: true });
    expect(await allFiles()).toEqual(['35.json', '36.xml']);
  });

  it('finds an order another process wrote and the ERP moved to done/ once the listing is read again', async () => {
    const ours = outbox(50);
    await ours.importOrder(contractOrder(40));
    await importedElsewhere(41, join(ordersDir, 'done'));
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(await ours.importOrder(contractOrder(41))).toEqual({ erpRef: '41.json', alreadyImported: true });
    expect(await allFiles()).toEqual(['40.json', 'done/41.json']);
  });

  it('looks on disk on a name the listing holds: its own file moved by the ERP meanwhile is found in done/', async () => {
    const ours = outbox(60_000);
    await ours.importOrder(contractOrder(50));
    await mkdir(join(ordersDir, 'archive'));
    await rename(join(ordersDir, '50.json'), join(ordersDir, 'archive', '50.json'));
    // A retry of the same order (its store link was never written): the listing still names 50.json
    // in the outbox, the disk has it in archive/.
    expect(await ours.importOrder(contractOrder(50))).toEqual({ erpRef: '50.json', alreadyImported: true });
    expect(await allFiles()).toEqual(['archive/50.json']);
  });

  it('imports again an order whose name the listing holds but whose file the ERP removed, like a first import', async () => {
    const ours = outbox(60_000);
    await ours.importOrder(contractOrder(60));
    await unlink(join(ordersDir, '60.json'));
    expect(await ours.importOrder(contractOrder(60))).toEqual({ erpRef: '60.json', alreadyImported: false });
    expect(await allFiles()).toEqual(['60.json']);
  });

  it('counts an import in the other format that was in a moved-to folder when the listing was read', async () => {
    await importedElsewhere(70, join(ordersDir, 'processed'));
    await rename(join(ordersDir, 'processed', '70.json'), join(ordersDir, 'processed', '70.xml'));
    const ours = outbox(60_000);
    expect(await ours.importOrder(contractOrder(70))).toEqual({ erpRef: '70.xml', alreadyImported: true });
    expect(await allFiles()).toEqual(['processed/70.xml']);
  });

  it('shares one listing among imports at once, each order written once', async () => {
    const ours = outbox(60_000);
    const ids = Array.from({ length: 40 }, (_, k) => 100 + k);
    await importedElsewhere(105, join(ordersDir, 'done'));
    const first = await Promise.all(ids.map((id) => ours.importOrder(contractOrder(id))));
    expect(first.filter((r) => r.alreadyImported).map((r) => r.erpRef)).toEqual(['105.json']);
    const again = await Promise.all(ids.map((id) => ours.importOrder(contractOrder(id))));
    expect(again.every((r) => r.alreadyImported)).toBe(true);
    expect((await allFiles()).length).toBe(40);
  });

  it('does not list folders above its size bound (an ERP that never empties done/): every name may be there, so the outbox looks on disk', async () => {
    const done = join(ordersDir, 'done');
    await mkdir(done, { recursive: true });
    const dirs = [ordersDir, done];
    const small = new OutboxListing(dirs, 60_000, undefined, 100);
    await writeFile(join(done, '1.json'), '{}');
    expect(await small.mayHold(['2.json'])).toBe(false);
    expect(await small.mayHold(['1.json'])).toBe(true);
    for (let k = 0; k < 10; k++) await writeFile(join(done, `${1000 + k}.json`), '{}');
    const bounded = new OutboxListing(dirs, 60_000, undefined, 5);
    expect(await bounded.mayHold(['2.json'])).toBe(true);
    expect(await bounded.mayHold(['3.xml', '3.json'])).toBe(true);
  });
});
