import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { STORE_KINDS, TestStores } from '../../support/testStores.js';

const run = promisify(execFile);

interface WorkerOutput {
  numbers: number[];
  leases: number;
  overlaps: number;
  writes: { key: string; generation: number }[];
  marks: { key: string; generation: number; marked: boolean }[];
}

describe.each(STORE_KINDS)('%s store shared by processes', (kind) => {
  const stores = new TestStores(kind);
  afterEach(() => stores.cleanup());

  it(
    "hands out every generation once, a lease to one process at a time, never lets an older in-flight mark win, and has a read-then-write transaction wait for the other's write",
    { timeout: 60_000 },
    async () => {
      const location = stores.location();
      // Enough rounds on SQLite that the two processes' transactions overlap (its rounds are short).
      const count = kind === 'sqlite' ? 3000 : 300;
      const worker = (owner: string) =>
        run(process.execPath, [
          '--import',
          'tsx',
          'test/support/storeWorker.ts',
          JSON.stringify(location),
          owner,
          String(count),
        ]);
      // Both start on a store that does not exist yet: the migration must run once, not twice.
      const results = await Promise.all([worker('a'), worker('b')]);
      const parsed = results.map((r) => JSON.parse(r.stdout) as WorkerOutput);
      const all = parsed.flatMap((p) => p.numbers).sort((x, y) => x - y);
      expect(all).toEqual(Array.from({ length: 2 * count }, (_, i) => i + 1));
      for (const p of parsed) expect(p.numbers).toEqual([...p.numbers].sort((x, y) => x - y));
      expect(parsed[0]!.leases + parsed[1]!.leases).toBeGreaterThan(0);
      expect(parsed.map((p) => p.overlaps)).toEqual([0, 0]);

      const store = stores.open({}, location);
      // Each key holds the write with the highest generation that reached it, whichever process wrote last.
      const highest = new Map<string, number>();
      for (const w of parsed.flatMap((p) => p.writes))
        highest.set(w.key, Math.max(highest.get(w.key) ?? 0, w.generation));
      const rows = store.fingerprints.getMany('stock', [...highest.keys()]);
      for (const [key, generation] of highest) expect(rows.get(key)?.generation, key).toBe(generation);

      // In-flight marks: the row ends with the highest generation marked, and a refused mark was
      // older than that one (it would have sent a value a later scan had replaced).
      const marks = parsed.flatMap((p) => p.marks);
      const marked = store.fingerprints.getMany('stock', ['M0', 'M1', 'M2', 'M3', 'M4']);
      for (const [key, row] of marked) {
        const taken = marks.filter((m) => m.key === key && m.marked).map((m) => m.generation);
        expect(row.generation, key).toBe(Math.max(...taken));
        for (const refused of marks.filter((m) => m.key === key && !m.marked))
          expect(refused.generation, key).toBeLessThan(row.generation);
      }
      expect(marked.size).toBe(5);

      // Read-then-write transactions of both processes: each row holds both processes' last value.
      const fields = store.products.fingerprints.getMany(['P0', 'P1', 'P2', 'P3', 'P4']);
      for (let k = 0; k < 5; k++) {
        const last = String(count - 5 + k);
        expect(fields.get(`P${k}`), `P${k}`).toEqual({ a: last, b: last });
      }
      expect(store.db.prepare('SELECT count(*) FROM schema_migrations').pluck().get()).toBeGreaterThan(0);
    },
  );
});
