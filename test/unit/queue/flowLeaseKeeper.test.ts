import { afterEach, describe, expect, it } from 'vitest';
import { flowOwner, pushLeaseName } from '../../../src/queue/flowLease.js';
import { startFlowLeaseKeeper, type FlowLeaseKeeper } from '../../../src/queue/flowLeaseKeeper.js';
import { openStore, type Store } from '../../../src/store/index.js';

let store: Store | undefined;
let keeper: FlowLeaseKeeper | undefined;
afterEach(() => {
  keeper?.stop();
  store?.close();
});

const TTL_MS = 600;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the flow lease keeper', () => {
  it("keeps a pushing flow's hold past its TTL, lets it lapse once the flow stops pushing or the keeper stops", async () => {
    store = openStore(':memory:');
    const pushing = new Set(['41', '42']);
    keeper = startFlowLeaseKeeper({
      store,
      pipelines: ['stock', 'prices'],
      ttlMs: TTL_MS,
      pushing: async (id) => pushing.has(id),
    });
    store.leases.acquire(pushLeaseName('stock'), flowOwner('41'), TTL_MS);
    store.leases.acquire(pushLeaseName('prices'), flowOwner('42'), TTL_MS);
    await sleep(3 * TTL_MS);
    expect(store.leases.holder(pushLeaseName('stock'))?.owner).toBe(flowOwner('41'));
    expect(store.leases.holder(pushLeaseName('prices'))?.owner).toBe(flowOwner('42'));

    pushing.delete('41'); // its last batch is done (or its scan job is running again)
    await sleep(2 * TTL_MS);
    expect(store.leases.holder(pushLeaseName('stock'))).toBeUndefined();
    expect(store.leases.holder(pushLeaseName('prices'))?.owner).toBe(flowOwner('42'));

    keeper.stop(); // the daemon died: nobody renews, the hold lapses
    await sleep(2 * TTL_MS);
    expect(store.leases.holder(pushLeaseName('prices'))).toBeUndefined();
  });

  it('never renews a lease a run-once holds, nor takes one over', async () => {
    store = openStore(':memory:');
    let asked = 0;
    keeper = startFlowLeaseKeeper({
      store,
      pipelines: ['stock'],
      ttlMs: TTL_MS,
      pushing: async () => {
        asked += 1;
        return true;
      },
    });
    store.leases.acquire(pushLeaseName('stock'), 'host:123:start:abcd', TTL_MS);
    await sleep(2 * TTL_MS);
    expect(store.leases.holder(pushLeaseName('stock'))).toBeUndefined();
    expect(asked).toBe(0);
  });
});
