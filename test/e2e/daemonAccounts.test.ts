import { renameSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../../dev/daemonProcess.js';
import { startAccountsWorld, type AccountsWorld, type WorldAccount } from '../support/accountsWorld.js';
import { opsGet, platformStock } from '../support/daemonWorld.js';
import { sellableSku } from '../support/orderChecks.js';
import { runCli } from '../support/cli.js';

/** Account a's change reaches its platform this fast whatever account b goes through (schedule 1 s, watch at once). */
const PROMPT_MS = 8_000;

let world: AccountsWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

async function readyz(url: string): Promise<{ status: number; reasons: string[] }> {
  const { status, text } = await opsGet(url, '/readyz');
  return { status, reasons: (JSON.parse(text) as { reasons: string[] }).reasons };
}

describe('several accounts in one daemon', () => {
  it("a stuck flow, a 429 storm, a revoked key and a missing ERP folder in account b never delay account a's pushes", async () => {
    world = await startAccountsWorld(['a', 'b'], {
      config: { queue: { probeSeconds: 2 } },
    });
    const [a, b] = world.accounts as [WorldAccount, WorldAccount];
    const skuA = await sellableSku(a.api);
    const skuB = await sellableSku(b.api);
    a.writeStock([{ sku: skuA, quantity: 1 }]);
    b.writeStock([{ sku: skuB, quantity: 1 }]);
    const daemon = await world.start();
    const stockOf = async (account: WorldAccount, sku: string) => (await platformStock(account.api)).get(sku);
    await eventually('both accounts pushed their first stock', async () => {
      return (await stockOf(a, skuA)) === 1 && (await stockOf(b, skuB)) === 1;
    });
    expect((await readyz(daemon.url)).status).toBe(200);

    const latencies: Record<string, number> = {};
    const aPushes = async (quantity: number, during: string): Promise<void> => {
      const started = Date.now();
      a.writeStock([{ sku: skuA, quantity }]);
      await eventually(
        `account a's change while b has ${during}`,
        async () => (await stockOf(a, skuA)) === quantity,
        PROMPT_MS,
        100,
      );
      latencies[during] = Date.now() - started;
    };
    await aPushes(2, 'nothing wrong');

    // 1. b's platform never answers its bulk requests: b's push flow is stuck in flight.
    b.sandbox.setFaults('stall_rate=1,only=PATCH /products/stock/bulk');
    b.writeStock([{ sku: skuB, quantity: 2 }]);
    // The drop is seen at once and the scan sends within a second or so: its bulk request then hangs.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    await aPushes(3, 'a stuck flow');

    // 2. b's platform answers 429 to nearly everything (one request a second).
    b.sandbox.setFaults('rate_limit=1/s');
    b.writeStock([{ sku: skuB, quantity: 3 }]);
    await eventually('b is told to slow down', () =>
      b.sandbox.requestLog.entries().some((entry) => entry.status === 429),
    );
    await aPushes(4, 'a 429 storm');

    // 3. b's key is revoked: b's queues pause, readiness names b (and only b).
    b.sandbox.setFaults(null);
    b.sandbox.setKeyRevoked(b.sandbox.keys.primary, true);
    b.writeStock([{ sku: skuB, quantity: 4 }]);
    await eventually('readiness names account b', async () =>
      (await readyz(daemon.url)).reasons.some((reason) => /^account b: paused: .*api_auth/.test(reason)),
    );
    const ready = await readyz(daemon.url);
    expect(ready.status).toBe(503);
    expect(ready.reasons.filter((reason) => reason.startsWith('account a'))).toEqual([]);
    const metrics = (await opsGet(daemon.url, '/metrics')).text;
    expect(metrics).toContain('erp_sync_paused{account="b"} 1');
    expect(metrics).toContain('erp_sync_paused{account="a"} 0');
    await aPushes(5, 'a revoked key');

    // 4. b's ERP folder is gone.
    renameSync(b.erpDir, `${b.erpDir}.away`);
    await aPushes(6, 'its ERP down');

    // b's bulk requests did hang (the sandbox logs one when the client gives up on it).
    expect(b.sandbox.requestLog.entries().some((entry) => entry.fault === 'stall')).toBe(true);

    // b recovers by itself once its platform and ERP are back, and a's value never moved meanwhile.
    renameSync(`${b.erpDir}.away`, b.erpDir);
    b.sandbox.setKeyRevoked(b.sandbox.keys.primary, false);
    b.writeStock([{ sku: skuB, quantity: 7 }]);
    await eventually('b catches up', async () => (await stockOf(b, skuB)) === 7, 40_000);
    await eventually(
      'readiness green for both',
      async () => (await readyz(daemon.url)).status === 200,
      20_000,
    );
    expect(await stockOf(a, skuA)).toBe(6);
    // Each of a's changes took about what it takes with nothing wrong in b.
    for (const [during, ms] of Object.entries(latencies)) expect(ms, during).toBeLessThan(PROMPT_MS);
    process.stderr.write(`account a's change to its platform, ms: ${JSON.stringify(latencies)}\n`);
  }, 180_000);

  it('one ops server shows every account: an index, each console under /accounts/NAME, Bull Board and metrics by account', async () => {
    world = await startAccountsWorld(['a', 'b']);
    const [a, b] = world.accounts as [WorldAccount, WorldAccount];
    const sku = await sellableSku(b.api);
    b.writeStock([{ sku, quantity: 9 }]);
    const daemon = await world.start();
    await eventually('b pushed', async () => (await platformStock(b.api)).get(sku) === 9);
    expect(a.name).toBe('a');

    const index = await opsGet(daemon.url, '/');
    expect(index.status).toBe(200);
    expect(index.text).toContain('href="/accounts/a/"');
    expect(index.text).toContain('href="/accounts/b/"');

    const overview = await opsGet(daemon.url, '/accounts/b/');
    expect(overview.status).toBe(200);
    expect(overview.text).toContain('href="/accounts/b/rejects"');
    expect(overview.text).toContain('data-live="/accounts/b/fragments/overview"');
    expect(overview.text).toContain('href="/metrics"');
    expect(overview.text).not.toMatch(
      /(href|action|src|data-live)="\/(rejects|orders|audit|explain|fragments|console)/,
    );
    expect((await opsGet(daemon.url, '/accounts/b/console/console.css')).status).toBe(200);
    const found = await fetch(`${daemon.url}/accounts/b/explain?q=${encodeURIComponent(sku)}&kind=sku`, {
      redirect: 'manual',
    });
    expect(found.status).toBe(303);
    expect(found.headers.get('location')).toBe(`/accounts/b/explain/sku?sku=${encodeURIComponent(sku)}`);
    const story = await opsGet(daemon.url, `/accounts/b/explain/sku?sku=${encodeURIComponent(sku)}`);
    expect(story.status).toBe(200);
    expect(story.text).toContain(sku);

    const board = JSON.parse((await opsGet(daemon.url, '/queues/api/queues?page=1')).text) as {
      queues: { name: string }[];
    };
    expect(board.queues.map((queue) => queue.name).sort()).toEqual([
      'a.imports',
      'a.pushes',
      'a.runs',
      'b.imports',
      'b.pushes',
      'b.runs',
    ]);

    const metrics = (await opsGet(daemon.url, '/metrics')).text;
    expect(metrics).toMatch(/erp_sync_runs_total\{account="b",pipeline="stock",status="ok"\} [1-9]/);
    expect(metrics).toMatch(/erp_sync_queue_jobs\{account="a",queue="runs",state="completed"\} \d+/);
    const unlabelled = metrics
      .split('\n')
      .filter((line) => line.startsWith('erp_sync_') && !line.includes('account="'));
    expect(unlabelled).toEqual([]);
  }, 120_000);

  it('an account whose key answers as another company does not start; the other accounts run', async () => {
    world = await startAccountsWorld(['a', 'b']);
    const [a, b] = world.accounts as [WorldAccount, WorldAccount];
    // b's store is bound to b's company first ...
    const bound = await runCli(
      ['--config', world.configFile, '--account', 'b', 'run-once', '--only', 'catalog'],
      world.env,
    );
    expect(bound.code, bound.stderr).toBe(0);
    // ... then b's variable holds another company's key.
    world.env[b.keyEnv] = b.sandbox.keys.secondary;
    const sku = await sellableSku(a.api);
    a.writeStock([{ sku, quantity: 5 }]);
    const daemon = await world.start();
    await eventually('a pushed', async () => (await platformStock(a.api)).get(sku) === 5);
    const ready = await readyz(daemon.url);
    expect(ready.status).toBe(503);
    expect(ready.reasons).toHaveLength(1);
    expect(ready.reasons[0]).toMatch(/^account b: not started: the store .* belongs to the account/);
    const metrics = (await opsGet(daemon.url, '/metrics')).text;
    expect(metrics).toContain('erp_sync_account_mismatch{account="b"} 1');
    expect(metrics).toContain('erp_sync_account_mismatch{account="a"} 0');
    expect(daemon.stderr()).toContain('this account does not run: its store belongs to another company');
    expect(daemon.stderr()).not.toContain(b.sandbox.keys.secondary);
  }, 120_000);

  it("SIGHUP reads each account's key file again: a replaced key of b is used, a goes on untouched", async () => {
    world = await startAccountsWorld(['a', 'b'], { keyFile: ['b'], config: { queue: { probeSeconds: 2 } } });
    const [a, b] = world.accounts as [WorldAccount, WorldAccount];
    const [skuA, skuB] = [await sellableSku(a.api), await sellableSku(b.api)];
    // b starts with a key the platform refuses: its jobs are held, a's run.
    writeFileSync(b.keyFile!, 'cms_not_a_key_of_this_platform\n');
    a.writeStock([{ sku: skuA, quantity: 3 }]);
    b.writeStock([{ sku: skuB, quantity: 3 }]);
    const daemon = await world.start();
    await eventually('a pushed', async () => (await platformStock(a.api)).get(skuA) === 3);
    await eventually('readiness names b', async () =>
      (await readyz(daemon.url)).reasons.some((reason) =>
        reason.startsWith("account b: the store's account is not verified"),
      ),
    );
    expect((await platformStock(b.api)).get(skuB)).not.toBe(3);

    writeFileSync(b.keyFile!, `${b.sandbox.keys.primary}\n`);
    daemon.kill('SIGHUP');
    await eventually(
      'b pushed with the reloaded key',
      async () => (await platformStock(b.api)).get(skuB) === 3,
    );
    await eventually('readiness green', async () => (await readyz(daemon.url)).status === 200, 20_000);
    a.writeStock([{ sku: skuA, quantity: 4 }]);
    await eventually('a still pushes', async () => (await platformStock(a.api)).get(skuA) === 4);
    expect(daemon.stderr()).not.toContain(b.sandbox.keys.primary);
  }, 120_000);
});
