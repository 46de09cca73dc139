import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { createApiClient } from '../../src/api/createApiClient.js';
import { createPlatformOrder, outboxIds, platformOrderIds, sellableSku } from '../support/orderChecks.js';
import { runCli, STACK_TRACE } from '../support/cli.js';
import { eventually, startDaemonProcess } from '../../dev/daemonProcess.js';
import { startGateProxy, type GateProxy } from '../support/gateProxy.js';
import { freePort } from '../../dev/redisServer.js';
import {
  metricValue,
  opsGet,
  startDaemonWorld,
  worldQueue,
  type DaemonWorld,
} from '../support/daemonWorld.js';

// Invariant 12 in the daemon: the real CLI (`erp-sync start`), the real sandbox with its two
// companies' keys, a private Redis.

let world: DaemonWorld | undefined;
let proxy: GateProxy | undefined;
afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
  await world?.close();
  world = undefined;
});

interface Status {
  account: { baseUrl: string; companyId: string; companyName: string; previousBaseUrl: string | null } | null;
}

async function status(w: DaemonWorld): Promise<Status> {
  const result = await runCli(['status', '--json', '-c', w.configFile]);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as Status;
}

/** Binds the world's store to the primary company (a run-once of stock), as a first deployment does. */
async function bindToPrimary(w: DaemonWorld): Promise<void> {
  w.writeStock([{ sku: await sellableSku(w.api), quantity: 5 }]);
  const bound = await runCli(['run-once', '--only', 'stock', '-c', w.configFile], w.env);
  expect(bound.code, bound.stderr).toBe(0);
}

/** Ids of the secondary company's orders (the ones the wrong key would import). */
async function secondaryOrderIds(w: DaemonWorld): Promise<number[]> {
  const api = createApiClient({ baseUrl: w.sandbox.url, apiKey: w.sandbox.keys.secondary, retries: 3 });
  try {
    return await platformOrderIds(api, ['new', 'confirmed']);
  } finally {
    await api.close();
  }
}

async function readyz(url: string): Promise<{ status: number; reasons: string[] }> {
  const { status: code, text } = await opsGet(url, '/readyz');
  return { status: code, reasons: (JSON.parse(text) as { reasons?: string[] }).reasons ?? [] };
}

/** The account gauges of /metrics, as Prometheus reads them. */
async function accountGauges(url: string): Promise<{ mismatch: number | null; unverified: number | null }> {
  const { text } = await opsGet(url, '/metrics');
  return {
    mismatch: metricValue(text, 'erp_sync_account_mismatch'),
    unverified: metricValue(text, 'erp_sync_account_unverified'),
  };
}

describe('the daemon and the store of one company', () => {
  it("refuses to start with another company's key (exit 65, as run-once), before any job, writing nothing", async () => {
    world = await startDaemonWorld({ schedules: { stock: 'off' } });
    await bindToPrimary(world);
    expect((await secondaryOrderIds(world)).length).toBeGreaterThan(0);
    world.sandbox.requestLog.clear();

    const refused = await runCli(
      ['start', '-c', world.configFile],
      { ...world.env, CMS_API_KEY: world.sandbox.keys.secondary },
      { timeoutMs: 30_000 },
    );
    expect(refused.code, refused.stderr.slice(-2000)).toBe(65);
    expect(refused.stderr).toContain('belongs to the account "Demo Retail SRL" (company 1)');
    expect(refused.stderr).toContain('not to the account "Second Shop SRL" (company 2)');
    expect(refused.stderr).not.toMatch(STACK_TRACE);
    expect(refused.stderr).not.toContain(world.sandbox.keys.secondary);
    // run-once says the same, word for word.
    const once = await runCli(['run-once', '-c', world.configFile], {
      ...world.env,
      CMS_API_KEY: world.sandbox.keys.secondary,
    });
    expect(once.code).toBe(65);
    const refusal = (text: string) =>
      text.split('\n').find((line) => line.includes('belongs to the account'));
    expect(refusal(refused.stderr)).toBe(refusal(once.stderr));

    expect((await outboxIds(world.erpDir)).ids).toEqual([]);
    expect(world.sandbox.requestLog.entries().filter((e) => e.method !== 'GET')).toEqual([]);
    expect(world.sandbox.requestLog.entries().filter((e) => !e.path.endsWith('/account'))).toEqual([]);
    const imports = worldQueue(world, 'imports');
    const runs = worldQueue(world, 'runs');
    try {
      expect(await imports.getJobCountByTypes('wait', 'active', 'delayed', 'completed', 'failed')).toBe(0);
      expect(await runs.getJobCountByTypes('wait', 'active', 'delayed', 'completed', 'failed')).toBe(0);
    } finally {
      await Promise.all([imports.close(), runs.close()]);
    }
    expect((await status(world)).account).toMatchObject({ companyId: '1', companyName: 'Demo Retail SRL' });
  }, 120_000);

  it('goes on at a new address of the same company (a proxy), records it, and status shows it', async () => {
    world = await startDaemonWorld({ schedules: { stock: 'off' } });
    await bindToPrimary(world);
    proxy = await startGateProxy(world.sandbox.url);
    const expected = await platformOrderIds(world.api, ['new', 'confirmed']);

    const daemon = await startDaemonProcess(world.configFile, { ...world.env, CMS_BASE_URL: proxy.url });
    try {
      await eventually(
        'the orders imported through the new address',
        async () => (await outboxIds(world!.erpDir)).ids.length === expected.length,
      );
      expect((await readyz(daemon.url)).status).toBe(200);
      const moved = daemon
        .stderr()
        .split('\n')
        .filter((line) => line.includes('answers at a new address'));
      expect(moved).toHaveLength(1);
      expect(moved[0]).toContain(world.sandbox.url);
    } finally {
      daemon.kill();
      await daemon.exited;
    }
    const { account } = await status(world);
    expect(account).toMatchObject({ baseUrl: proxy.url, previousBaseUrl: world.sandbox.url, companyId: '1' });
    const text = await runCli(['status', '-c', world.configFile]);
    expect(text.stdout).toContain(`at ${proxy.url}`);
    expect(text.stdout).toContain(`address changed from ${world.sandbox.url}`);
  }, 120_000);

  it('holds every job while the account cannot be read at start, and starts work once a reloaded base URL answers', async () => {
    world = await startDaemonWorld({ schedules: { stock: 'off' } });
    const expected = await platformOrderIds(world.api, ['new', 'confirmed']);
    const withBaseUrl = (baseUrl: string) =>
      writeFileSync(
        world!.configFile,
        stringifyYaml({
          ...(parseYaml(readFileSync(world!.configFile, 'utf8')) as object),
          api: { baseUrl },
        }),
      );
    withBaseUrl(`http://127.0.0.1:${await freePort()}/api/v2`);
    const env: Record<string, string> = { ...world.env };
    delete env.CMS_BASE_URL;

    const daemon = await startDaemonProcess(world.configFile, env);
    try {
      const held = await readyz(daemon.url);
      expect(held.status).toBe(503);
      expect(held.reasons.join(' ')).toMatch(/the store's account is not verified: GET \/account .*failed/);
      expect(await accountGauges(daemon.url)).toEqual({ mismatch: 0, unverified: 1 });
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      expect((await outboxIds(world.erpDir)).ids).toEqual([]);
      expect((await status(world)).account).toBeNull();

      withBaseUrl(world.sandbox.url);
      daemon.kill('SIGHUP');
      await eventually('readiness green', async () => (await readyz(daemon.url)).status === 200, 20_000);
      expect(await accountGauges(daemon.url)).toEqual({ mismatch: 0, unverified: 0 });
      await eventually(
        'the orders imported',
        async () => (await outboxIds(world!.erpDir)).ids.length === expected.length,
      );
    } finally {
      daemon.kill();
      await daemon.exited;
    }
    expect((await status(world)).account).toMatchObject({ baseUrl: world.sandbox.url, companyId: '1' });
  }, 120_000);

  it('pauses at its periodic check when the same key starts answering as another company, and goes on once it is back', async () => {
    world = await startDaemonWorld({
      schedules: { stock: 'off' },
      config: { queue: { accountCheckSeconds: 1, probeSeconds: 1 } },
    });
    proxy = await startGateProxy(world.sandbox.url);
    const expected = await platformOrderIds(world.api, ['new', 'confirmed']);
    const daemon = await startDaemonProcess(world.configFile, { ...world.env, CMS_BASE_URL: proxy.url });
    try {
      await eventually(
        'the orders imported',
        async () => (await outboxIds(world!.erpDir)).ids.length === expected.length,
      );
      expect(await accountGauges(daemon.url)).toEqual({ mismatch: 0, unverified: 0 });
      // Behind the proxy, GET /account now names another company (a proxy routing elsewhere).
      proxy.rewrite(
        (method, path) => method === 'GET' && path === '/account',
        (json) => {
          const body = json as { data: Record<string, unknown> };
          return { ...body, data: { ...body.data, id: 2, name: 'Second Shop SRL', cui: 'RO87654321' } };
        },
      );
      await eventually('readiness red', async () => (await readyz(daemon.url)).status === 503, 20_000);
      expect((await readyz(daemon.url)).reasons.join(' ')).toContain('not to the account "Second Shop SRL"');
      // What an operator's Prometheus sees (the ErpSyncAccountMismatch alert), no company named in it.
      const { text: metrics } = await opsGet(daemon.url, '/metrics');
      expect(await accountGauges(daemon.url)).toEqual({ mismatch: 1, unverified: 0 });
      expect(metrics).not.toContain('Second Shop');
      const order = await createPlatformOrder(world.api, await sellableSku(world.api));
      await new Promise((resolve) => setTimeout(resolve, 4_000));
      expect((await outboxIds(world.erpDir)).ids).not.toContain(order.id);

      proxy.rewrite(null);
      await eventually(
        'readiness green again',
        async () => (await readyz(daemon.url)).status === 200,
        20_000,
      );
      expect(await accountGauges(daemon.url)).toEqual({ mismatch: 0, unverified: 0 });
      await eventually('the order waiting meanwhile imported', async () =>
        (await outboxIds(world!.erpDir)).ids.includes(order.id),
      );
    } finally {
      daemon.kill();
      await daemon.exited;
    }
  }, 150_000);

  it('pauses when a reloaded key (SIGHUP) answers as another company: readiness red, no order imported; resumes with the right key', async () => {
    world = await startDaemonWorld({ schedules: { stock: 'off' }, config: { queue: { probeSeconds: 2 } } });
    const keyFile = join(world.dir, 'api-key');
    writeFileSync(keyFile, `${world.sandbox.keys.primary}\n`);
    const env = { ...world.env, CMS_API_KEY_FILE: keyFile };
    delete (env as Record<string, string | undefined>).CMS_API_KEY;
    const expected = await platformOrderIds(world.api, ['new', 'confirmed']);
    const secondary = await secondaryOrderIds(world);
    expect(secondary.length).toBeGreaterThan(0);

    const daemon = await startDaemonProcess(world.configFile, env);
    try {
      await eventually(
        "the primary company's orders imported",
        async () => (await outboxIds(world!.erpDir)).ids.length === expected.length,
      );
      expect((await readyz(daemon.url)).status).toBe(200);

      writeFileSync(keyFile, `${world.sandbox.keys.secondary}\n`);
      daemon.kill('SIGHUP');
      await eventually('readiness red', async () => (await readyz(daemon.url)).status === 503, 20_000);
      const { reasons } = await readyz(daemon.url);
      expect(reasons.join(' ')).toMatch(/another company's API key: .*"Second Shop SRL" \(company 2\)/);
      expect(daemon.stderr()).toMatch(/"level":50.*every queue of this daemon is paused/);
      // The orders schedule fires every second: still nothing of the other company is imported.
      await new Promise((resolve) => setTimeout(resolve, 6_000));
      const during = (await outboxIds(world.erpDir)).ids;
      expect(during.filter((id) => secondary.includes(id))).toEqual([]);
      expect(during).toHaveLength(expected.length);
      expect((await readyz(daemon.url)).status).toBe(503);

      // Back to the right company with a rotated key (a second key of the same company), and the old
      // key revoked: the order below can only be imported with the reloaded key.
      const rotated = world.sandbox.keys.revoked;
      world.sandbox.setKeyRevoked(rotated, false);
      writeFileSync(keyFile, `${rotated}\n`);
      daemon.kill('SIGHUP');
      await eventually(
        'readiness green again',
        async () => (await readyz(daemon.url)).status === 200,
        20_000,
      );
      world.sandbox.setKeyRevoked(world.sandbox.keys.primary, true);
      const api = createApiClient({ baseUrl: world.sandbox.url, apiKey: rotated, retries: 3 });
      const order = await createPlatformOrder(api, await sellableSku(api)).finally(() => api.close());
      await eventually('a new order imported with the reloaded key', async () =>
        (await outboxIds(world!.erpDir)).ids.includes(order.id),
      );
      expect(daemon.stderr()).not.toContain(world.sandbox.keys.secondary);
      expect(daemon.stderr()).not.toContain(rotated);
      expect(daemon.stderr()).toContain("the reloaded API credentials answer as the store's company");
      expect(daemon.child.exitCode).toBeNull();
    } finally {
      daemon.kill();
      await daemon.exited;
    }
    expect((await status(world)).account).toMatchObject({ companyId: '1' });
  }, 150_000);
});
