import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { PROJECT_ROOT } from './cli.js';

/** Debian's Chromium (`apt-get install chromium`, see .ci/run): puppeteer-core downloads no browser. */
export const CHROMIUM = process.env.ERP_SYNC_CHROMIUM ?? '/usr/bin/chromium';

/** Where browser tests leave their screenshots; CI keeps the folder as an artefact. */
export const ARTIFACTS = join(PROJECT_ROOT, 'test-artifacts');

export interface TestBrowser {
  browser: Browser;
  /** A new tab of the given size, in the given time zone, recording console errors and page errors. */
  page(options?: { width?: number; height?: number; timeZone?: string }): Promise<WatchedPage>;
  /** Writes a full-page screenshot to test-artifacts/<folder>/<name>.png; returns its path. */
  screenshot(page: Page, folder: string, name: string): Promise<string>;
  close(): Promise<void>;
}

export interface WatchedPage {
  page: Page;
  /** Console messages of type error and uncaught page errors since the tab opened (or the last clear). */
  errors: string[];
}

/** Headless Chromium with a fresh profile, no network of its own (no updates, no sync). */
export async function launchBrowser(): Promise<TestBrowser> {
  const profile = mkdtempSync(join(tmpdir(), 'erp-sync-chromium-'));
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--headless',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      `--user-data-dir=${profile}`,
    ],
  });
  return {
    browser,
    async page(options = {}) {
      const page = await browser.newPage();
      await page.setViewport({ width: options.width ?? 1280, height: options.height ?? 900 });
      if (options.timeZone) await page.emulateTimezone(options.timeZone);
      const errors: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error') errors.push(`${message.text()} (${message.location().url ?? '?'})`);
      });
      page.on('pageerror', (error) => errors.push(`page error: ${(error as Error).message}`));
      return { page, errors };
    },
    async screenshot(page, folder, name) {
      const dir = join(ARTIFACTS, folder);
      mkdirSync(dir, { recursive: true });
      const path = join(dir, `${name}.png`);
      await page.screenshot({ path, fullPage: true });
      return path;
    },
    async close() {
      await browser.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
