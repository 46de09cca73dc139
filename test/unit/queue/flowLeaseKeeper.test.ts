import { afterEach, describe, expect, it } from 'vitest';
import { startFlowLeaseKeeper, type FlowLeaseKeeper } from '../../../src/queue/flowLeaseKeeper.js';
import type { FlowStuckError } from '../../../src/queue/FlowStuckError.js';
import type { FlowView } from '../../../src/queue/stuckFlow.js';
import { openStore, type Store } from '../../../src/store/index.js';
import {
  acquirePipelineLease,
  flowHolding,
  handToFlow,
  pipelineLeaseName,
} from '../../../src/sync/frame/pipelineLease.js';

let store: Store | undefined;
let keeper: FlowLeaseKeeper | undefined;
afterEach(() => {
  keeper?.stop();
  store?.close();
});

const TTL_MS = 600;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const pushingFor =
  (ids: Set<string>) =>
  async (id: string): Promise<FlowView | null> =>
    ids.has(id) ? { pushing: true, ageMs: 0, batches: 1 } : { pushing: false, ageMs: 0, batches: 1 };
/** Flow `flowId` holds the pipeline's lease, as a scan leaves it. */
async function flowHolds(s: Store, pipeline: string, flowId: string): Promise<void> {
  handToFlow(await acquirePipelineLease(s, pipeline, { ttlMs: TTL_MS, waitMs: 0 }), flowId);
}
const neverStuck = { limitMs: () => Number.MAX_SAFE_INTEGER, failStuck: async () => undefined };

describe('the flow lease keeper', () => {
  it("keeps a pushing flow's hold past its TTL, lets it lapse once the flow stops pushing or the keeper stops", async () => {
    store = openStore(':memory:');
    const pushing = new Set(['41', '42']);
    keeper = startFlowLeaseKeeper({
      store,
      pipelines: ['stock', 'prices'],
      ttlMs: TTL_MS,
      inspect: pushingFor(pushing),
      ...neverStuck,
    });
    await flowHolds(store, 'stock', '41');
    await flowHolds(store, 'prices', '42');
    await sleep(3 * TTL_MS);
    expect(flowHolding(store, 'stock')).toBe('41');
    expect(flowHolding(store, 'prices')).toBe('42');

    pushing.delete('41'); // its last batch is done (or its scan job is running again)
    await sleep(2 * TTL_MS);
    expect(store.leases.holder(pipelineLeaseName('stock'))).toBeUndefined();
    expect(flowHolding(store, 'prices')).toBe('42');

    keeper.stop(); // the daemon died: nobody renews, the hold lapses
    await sleep(2 * TTL_MS);
    expect(store.leases.holder(pipelineLeaseName('prices'))).toBeUndefined();
  });

  it('never renews a lease a run-once holds, nor takes one over', async () => {
    store = openStore(':memory:');
    let asked = 0;
    keeper = startFlowLeaseKeeper({
      store,
      pipelines: ['stock'],
      ttlMs: TTL_MS,
      inspect: async () => {
        asked += 1;
        return { pushing: true, ageMs: 0, batches: 1 };
      },
      ...neverStuck,
    });
    store.leases.acquire(pipelineLeaseName('stock'), 'host:123:start:abcd', TTL_MS);
    await sleep(2 * TTL_MS);
    expect(store.leases.holder(pipelineLeaseName('stock'))).toBeUndefined();
    expect(asked).toBe(0);
  });

  it('fails a flow past the limit of its batch count and releases its lease at once; a younger one is renewed', async () => {
    store = openStore(':memory:');
    const started = Date.now();
    const flows: Record<string, { startedAt: number; batches: number }> = {
      '51': { startedAt: started, batches: 2 }, // limit 2 x 1000 ms
      '52': { startedAt: started, batches: 30 }, // limit 30 x 1000 ms
    };
    const failed: string[] = [];
    const stuck: { pipeline: string; error: FlowStuckError }[] = [];
    keeper = startFlowLeaseKeeper({
      store,
      pipelines: ['stock', 'prices'],
      ttlMs: TTL_MS,
      inspect: async (id) => ({
        pushing: true,
        ageMs: Date.now() - flows[id]!.startedAt,
        batches: flows[id]!.batches,
      }),
      limitMs: (batches) => batches * 1000,
      failStuck: async (id) => {
        failed.push(id);
      },
      onStuck: (pipeline, error) => stuck.push({ pipeline, error }),
    });
    await flowHolds(store, 'stock', '51');
    await flowHolds(store, 'prices', '52');
    await sleep(1500);
    expect(failed).toEqual([]);
    expect(flowHolding(store, 'stock')).toBe('51');
    await sleep(1200);
    expect(failed).toEqual(['51']);
    expect(stuck.map((s) => [s.pipeline, s.error.code])).toEqual([['stock', 'flow_stuck']]);
    expect(stuck[0]!.error.message).toMatch(/stock flow waited \d+ s for its batches, past its limit of 2 s/);
    // Released at once, not left to lapse: a newer scan may start now.
    expect(store.leases.holder(pipelineLeaseName('stock'))).toBeUndefined();
    expect(flowHolding(store, 'prices')).toBe('52');
  });
});
