import { afterEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../../../src/store/index.js';
import { LeaseBusyError, LeaseLostError } from '../../../../src/sync/frame/lease.js';
import {
  acquirePipelineLease,
  enterFlow,
  flowHolding,
  handToFlow,
  pipelineLeaseName,
  releaseFlow,
  releaseLostFlow,
  renewFlow,
} from '../../../../src/sync/frame/pipelineLease.js';

let store: Store | undefined;
afterEach(() => store?.close());

const TTL = { ttlMs: 10_000, waitMs: 0 };
const enter = (s: Store, scanOwner: string, flowId: string, alive = true) =>
  enterFlow(s, 'stock', {
    scanOwner,
    flowId,
    ttlMs: 10_000,
    waitMs: 100,
    pollMs: 20,
    alive: async () => alive,
  });

describe('the pipeline lease protocol', () => {
  it('lets a scan hand its run lease to its flow; the flow holds the pipeline until it releases it', async () => {
    store = openStore(':memory:');
    const run = await acquirePipelineLease(store, 'stock', TTL);
    expect(run.name).toBe(pipelineLeaseName('stock'));
    // While the scan reads on, its batches send under the run's lease.
    expect(await enter(store, run.owner, '7')).toBe('entered');
    expect(flowHolding(store, 'stock')).toBeNull();

    handToFlow(run, '7');
    run.release(); // the frame ends: nothing to release, the flow holds it now
    expect(flowHolding(store, 'stock')).toBe('7');
    expect(await enter(store, run.owner, '7')).toBe('entered');
    expect(renewFlow(store, 'stock', '7', 10_000)).toBe(true);
    // A newer run waits for the flow.
    await expect(
      acquirePipelineLease(store, 'stock', { ttlMs: 10_000, waitMs: 50, pollMs: 10 }),
    ).rejects.toBeInstanceOf(LeaseBusyError);
    // Another flow's batch waits too, then gives up.
    expect(await enter(store, 'other-scan', '8')).toBe('busy');

    expect(releaseFlow(store, 'stock', '8')).toBe(false);
    expect(releaseFlow(store, 'stock', '7')).toBe(true);
    expect(releaseFlow(store, 'stock', '7')).toBe(false);
    expect(renewFlow(store, 'stock', '7', 10_000)).toBe(false);
    const next = await acquirePipelineLease(store, 'stock', TTL);
    next.release();
  });

  it('never hands over a lease the run lost to another run', async () => {
    let now = 1_000_000;
    store = openStore(':memory:', { now: () => now });
    const run = await acquirePipelineLease(store, 'stock', { ttlMs: 1_000, waitMs: 0 });
    now += 5_000; // the run stalled past its TTL: another run takes the pipeline
    expect(store.leases.acquire(pipelineLeaseName('stock'), 'other-run', 10_000)).toBe(true);
    expect(() => handToFlow(run, '9')).toThrow(LeaseLostError);
    expect(store.leases.holder(pipelineLeaseName('stock'))?.owner).toBe('other-run');
    expect(flowHolding(store, 'stock')).toBeNull();
  });

  it("takes a free lease for a living flow (its hold lapsed), never for a dead one; a scan releases a lost flow's hold", async () => {
    store = openStore(':memory:');
    expect(await enter(store, 'gone-scan', '10', false)).toBe('ended');
    expect(store.leases.holder(pipelineLeaseName('stock'))).toBeUndefined();
    expect(await enter(store, 'gone-scan', '10', true)).toBe('entered');
    expect(flowHolding(store, 'stock')).toBe('10');

    await releaseLostFlow(store, 'stock', async () => true);
    expect(flowHolding(store, 'stock')).toBe('10');
    const asked: string[] = [];
    await releaseLostFlow(store, 'stock', async (id) => {
      asked.push(id);
      return false;
    });
    expect(asked).toEqual(['10']);
    expect(flowHolding(store, 'stock')).toBeNull();
  });
});
