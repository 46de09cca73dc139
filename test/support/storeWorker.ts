// Run as a separate process by multiProcess.test.ts: takes generations and a lease on a shared store.
import { openStore } from '../../src/store/Store.js';

const [path, owner, countText] = process.argv.slice(2);
const store = openStore(path!);
const numbers: number[] = [];
let leases = 0;
const writes: { key: string; generation: number }[] = [];
for (let i = 0; i < Number(countText); i++) {
  numbers.push(store.generations.next('stock'));
  if (store.leases.acquire('stock', owner!, 60_000)) {
    leases++;
    const write = { key: `K${i % 10}`, generation: numbers.at(-1)! };
    writes.push(write);
    store.fingerprints.putMany('stock', [{ ...write, hash: owner! }]);
    store.leases.release('stock', owner!);
  }
}
store.close();
process.stdout.write(JSON.stringify({ numbers, leases, writes }));
