import { randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { writeConfigFile } from '../../src/config.js';
import { openStore } from '../../src/store/index.js';
import { PIPELINE_ORDER } from '../../src/domain/pipelineNames.js';
import { launchBrowser, type TestBrowser, type WatchedPage } from '../support/browser.js';
import { eventually, startDaemonProcess, type DaemonProcess } from '../../dev/daemonProcess.js';
import { createPlatformOrder, sellableSku } from '../support/orderChecks.js';
import { startDaemonWorld, worldQueue, type DaemonWorld } from '../support/daemonWorld.js';

// The console in a real browser (Debian's Chromium driven by puppeteer-core) against the daemon as
// a child process, the sandbox and a drop folder. Screenshots go to test-artifacts/console/.

const SHOTS = 'console';
let world: DaemonWorld;
let daemon: DaemonProcess;
let browser: TestBrowser;
let erpDir: string;
let knownSkus: string[];
let unknownSku: string;
let parkedOrderId: number;

function writeStock(rows: string[]): void {
  const file = join(erpDir, 'stock.csv');
  writeFileSync(`${file}.tmp`, `sku,quantity\n${rows.join('\n')}\n`);
  renameSync(`${file}.tmp`, file);
}

const goodRows = (skus: string[]): string[] => skus.map((sku) => `${sku},5`);

/** Opens a page of the console and waits until it has drawn (its script ran: times are local). */
async function open(path: string, options: { width?: number; timeZone?: string } = {}): Promise<WatchedPage> {
  const watched = await browser.page({ timeZone: 'Europe/Bucharest', ...options });
  const response = await watched.page.goto(`${daemon.url}${path}`, { waitUntil: 'networkidle0' });
  expect(response?.status(), path).toBe(200);
  return watched;
}

beforeAll(async () => {
  world = await startDaemonWorld({
    schedules: { stock: '*/1 * * * * *', orders: '*/1 * * * * *' },
    config: {
      // orders with a SKU the ERP does not know are parked; retried automatically only after an hour
      orders: { oversellGuard: { enabled: false }, parkedRetryMinutes: 60 },
    },
  });
  erpDir = join(world.dir, 'console-erp');
  mkdirSync(erpDir);
  writeConfigFile(world.configFile, {
    ...loadRaw(world.configFile),
    erp: { type: 'file', path: erpDir, stableMs: 0, outbox: { requireKnownSkus: true } },
  });
  unknownSku = await sellableSku(world.api);
  knownSkus = [];
  for await (const product of world.api.products.iterate()) {
    if (product.sku && product.sku !== unknownSku) knownSkus.push(product.sku);
    for (const variant of product.variants ?? []) if (variant.sku) knownSkus.push(variant.sku);
  }
  writeStock(goodRows(knownSkus));
  daemon = await world.start();
  const order = await createPlatformOrder(world.api, unknownSku, 1);
  parkedOrderId = order.id;
  const store = openStore(join(world.dir, 'erp-sync.db'), { mustExist: true });
  try {
    await eventually(
      'the new order parked',
      () => store.orders.parked.get(parkedOrderId) !== undefined,
      60_000,
    );
  } finally {
    store.close();
  }
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await world?.close();
});

/** The configuration file the world wrote, as plain values, to write a variant of it. */
function loadRaw(file: string): Record<string, unknown> {
  return parseYaml(readFileSync(file, 'utf8')) as Record<string, unknown>;
}

describe('the console in a browser', () => {
  it('loads every page with no console error, in the browser time zone, and keeps a screenshot of each', async () => {
    const pages: [string, string][] = [
      ['overview', '/'],
      ['rejects', '/rejects'],
      ['parked-orders', '/orders'],
      ['audit', '/audit'],
      ['sku', `/explain/sku?sku=${encodeURIComponent(knownSkus[0]!)}`],
      ['order', `/explain/order?id=${parkedOrderId}`],
      ['queues', '/queues'],
    ];
    for (const [name, path] of pages) {
      const { page, errors } = await open(path);
      // let at least one refresh of the live parts happen
      if (await page.$('[data-live]')) await new Promise((resolve) => setTimeout(resolve, 5_500));
      expect(errors, `${path}: ${errors.join('\n')}`).toEqual([]);
      if (path !== '/queues') {
        expect(await page.$eval('#zone', (el) => el.textContent)).toBe('Europe/Bucharest');
        const shown = await page.$$eval('time[datetime]', (times) => times.map((t) => t.textContent ?? ''));
        // drawn by the script in the browser's zone, not the server's ISO text
        expect(shown.every((text) => !/\d{4}-\d\d-\d\dT/.test(text))).toBe(true);
        // a page with live parts says when they were last refreshed
        if (await page.$('[data-live]'))
          expect(await page.$eval('#updated', (el) => el.textContent)).toMatch(/^· updated /);
      }
      await browser.screenshot(page, SHOTS, name);
      await page.close();
    }
    const phone = await open('/', { width: 390 });
    expect(phone.errors).toEqual([]);
    // nothing wider than the phone's screen but the tables' own scrolling panels
    expect(await phone.page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await browser.screenshot(phone.page, SHOTS, 'overview-phone');
    await phone.page.close();
  }, 180_000);

  it('shows a reject in the open page once a bad row is dropped into the stock file, without a reload', async () => {
    const { page, errors } = await open('/rejects');
    const bad = `BAD-${randomUUID().slice(0, 8)}`;
    expect(await page.content()).not.toContain(bad);
    // a mark on this document: a reload would start a new one without it
    await page.evaluate('window.notReloaded = true');
    writeStock([...goodRows(knownSkus), `${bad},lots`]);
    await page.waitForFunction(`document.body.innerText.includes(${JSON.stringify(bad)})`, {
      timeout: 60_000,
    });
    expect(await page.evaluate('window.notReloaded')).toBe(true);
    const row = await page.$eval(`a[href="/explain/sku?sku=${bad}"]`, (a) => a.closest('tr')!.innerText);
    expect(row).toContain('quantity is not a number: "lots"');
    // the header is line 1
    expect(row).toMatch(new RegExp(`stock\\.csv:${knownSkus.length + 2}\\b`));
    expect(errors).toEqual([]);
    await browser.screenshot(page, SHOTS, 'rejects-after-bad-row');
    await page.close();
    writeStock(goodRows(knownSkus));
  }, 120_000);

  it('refuses an action without the CSRF token', async () => {
    const { page } = await open('/');
    const runs = worldQueue(world, 'runs');
    try {
      const statuses = await page.evaluate(async () => {
        const send = (body: string) =>
          fetch('/actions/sync', {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body,
          }).then((response) => response.status);
        return [await send('pipeline=stock'), await send('pipeline=stock&_csrf=1.forged')];
      });
      expect(statuses).toEqual([403, 403]);
      const manual = (await runs.getJobs(['waiting', 'active', 'completed', 'delayed'])).filter((job) =>
        job.id?.startsWith('manual-'),
      );
      expect(manual).toEqual([]);
      // the button of the page carries its token: the same action goes through
      await Promise.all([
        page.waitForNavigation(),
        page.click('form[action="/actions/sync"]:has(input[value="stock"]) button'),
      ]);
      expect(await page.$eval('.note.ok', (el) => el.textContent)).toMatch(/A stock run was enqueued/);
    } finally {
      await runs.close();
      await page.close();
    }
  }, 60_000);

  it('retries a parked order from its row once the cause is fixed: it leaves the list and is imported once', async () => {
    const { page, errors } = await open('/orders');
    const retry = `form[action="/actions/retry"]:has(input[name="order"][value="${parkedOrderId}"]) button`;
    expect(await page.$(retry)).not.toBeNull();
    expect(await page.$eval('main', (el) => el.innerText)).toContain(`unknown SKU in the ERP: ${unknownSku}`);
    writeStock(goodRows([...knownSkus, unknownSku])); // the cause, fixed in the ERP
    await Promise.all([page.waitForNavigation(), page.click(retry)]);
    expect(await page.$eval('.note.ok', (el) => el.textContent)).toMatch(/1 parked order\(s\) made due now/);
    await page.waitForFunction(`!document.querySelector('a[href="/explain/order?id=${parkedOrderId}"]')`, {
      timeout: 60_000,
    });
    expect(errors).toEqual([]);
    await browser.screenshot(page, SHOTS, 'parked-orders-after-retry');
    await page.close();

    const outbox = join(erpDir, 'outbox', 'orders');
    expect(readdirSync(outbox).filter((name) => name.startsWith(`${parkedOrderId}.`))).toEqual([
      `${parkedOrderId}.json`,
    ]);
    const store = openStore(join(world.dir, 'erp-sync.db'), { mustExist: true });
    try {
      expect(store.orders.parked.get(parkedOrderId)).toBeUndefined();
      expect(store.orders.links.get(parkedOrderId)?.erpRef).toBe(`${parkedOrderId}.json`);
    } finally {
      store.close();
    }
    const story = await open(`/explain/order?id=${parkedOrderId}`);
    expect(await story.page.$eval('.verdict', (el) => el.textContent)).toMatch(/in step/);
    await story.page.close();
  }, 120_000);

  it('read-only: shows no action and refuses them, Bull Board too', async () => {
    const configFile = join(world.dir, 'read-only.yaml');
    writeConfigFile(configFile, {
      ...loadRaw(world.configFile),
      erp: { type: 'file', path: erpDir, stableMs: 0, outbox: { requireKnownSkus: true } },
      server: { host: '127.0.0.1', port: 0, dashboard: { readOnly: true } },
      // a second daemon on the same store and Redis that only shows: it runs nothing itself
      schedules: Object.fromEntries(PIPELINE_ORDER.map((pipeline) => [pipeline, 'off'])),
    });
    const shown = await startDaemonProcess(configFile, world.env);
    try {
      const watched = await browser.page({ timeZone: 'Europe/Bucharest' });
      for (const path of ['/', '/orders', '/audit', `/explain/order?id=${parkedOrderId}`]) {
        await watched.page.goto(`${shown.url}${path}`, { waitUntil: 'networkidle0' });
        expect(await watched.page.$$('form[method="post"]'), path).toEqual([]);
      }
      expect(watched.errors).toEqual([]);
      await watched.page.goto(`${shown.url}/`, { waitUntil: 'networkidle0' });
      expect(await watched.page.$eval('footer', (el) => el.innerText)).toContain('read-only');
      await browser.screenshot(watched.page, SHOTS, 'overview-read-only');
      const statuses = await watched.page.evaluate(async () => {
        const post = (path: string) =>
          fetch(path, {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: 'pipeline=stock&order=all',
          }).then((response) => response.status);
        const board = await fetch('/queues/api/queues').then(
          (response) => response.json() as Promise<{ queues: { readOnlyMode: boolean }[] }>,
        );
        const retry = await fetch('/queues/api/queues/runs/retry/failed', { method: 'PUT' });
        return {
          sync: await post('/actions/sync'),
          retry: await post('/actions/retry'),
          audit: await post('/actions/audit'),
          boardReadOnly: board.queues.map((q) => q.readOnlyMode),
          boardRetry: retry.status,
        };
      });
      expect(statuses).toEqual({
        sync: 403,
        retry: 403,
        audit: 403,
        boardReadOnly: [true, true, true],
        boardRetry: 405,
      });
      await watched.page.close();
    } finally {
      shown.kill('SIGKILL');
      await shown.exited;
    }
  }, 120_000);
});
