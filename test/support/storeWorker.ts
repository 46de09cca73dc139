// Run as a separate process by multiProcess.test.ts: takes generations, a lease and in-flight marks
// on a shared store (argv: the store's configuration as JSON, an owner name, a count).
import type { StoreConfig } from '../../src/config/storeConfigSchema.js';
import { openStoreFromConfig } from '../../src/store/openStoreFromConfig.js';

const [configJson, owner, countText] = process.argv.slice(2);
const store = openStoreFromConfig(JSON.parse(configJson!) as StoreConfig);
const numbers: number[] = [];
let leases = 0;
/** Times this process, holding the lease, found another owner inside the section it guards. */
let overlaps = 0;
const writes: { key: string; generation: number }[] = [];
const marks: { key: string; generation: number; marked: boolean }[] = [];
for (let i = 0; i < Number(countText); i++) {
  const generation = store.generations.next('stock');
  numbers.push(generation);
  // In-flight marks of one key by both processes, each with its own scan's generation.
  const key = `M${i % 5}`;
  const { superseded } = store.fingerprints.markInFlight('stock', generation, [[key, `~${owner}`]]);
  marks.push({ key, generation, marked: !superseded.has(key) });
  // A transaction that reads before it writes, on rows the other process writes too: it must wait
  // for the other's write lock (not fail at once) and must not lose the other's field.
  store.products.fingerprints.update([{ sku: `P${i % 5}`, set: { [owner!]: String(i) } }]);
  if (store.leases.acquire('stock', owner!, 60_000)) {
    leases++;
    if (store.cursors.get('section') !== null) overlaps++;
    store.cursors.set('section', owner!);
    const write = { key: `K${i % 10}`, generation };
    writes.push(write);
    store.fingerprints.putMany('stock', [{ ...write, hash: owner! }]);
    if (store.cursors.get('section') !== owner) overlaps++;
    store.cursors.delete('section');
    store.leases.release('stock', owner!);
  }
}
store.close();
process.stdout.write(JSON.stringify({ numbers, leases, overlaps, writes, marks }));
