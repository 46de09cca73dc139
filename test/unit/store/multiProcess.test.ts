import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../../src/store/Store.js';
import { tempDir } from '../../support/tempDir.js';

const run = promisify(execFile);
const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});

describe('store shared by processes', () => {
  it('hands out every generation once and never fails on a busy file', { timeout: 30_000 }, async () => {
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    const path = join(dir, 'shared.db');
    const worker = (owner: string) =>
      run(process.execPath, ['--import', 'tsx', 'test/support/storeWorker.ts', path, owner, '300']);
    // Both start on a file that does not exist yet: the migration must run once, not twice.
    const results = await Promise.all([worker('a'), worker('b')]);
    const parsed = results.map(
      (r) =>
        JSON.parse(r.stdout) as {
          numbers: number[];
          leases: number;
          writes: { key: string; generation: number }[];
        },
    );
    const all = parsed.flatMap((p) => p.numbers).sort((x, y) => x - y);
    expect(all).toEqual(Array.from({ length: 600 }, (_, i) => i + 1));
    for (const p of parsed) expect(p.numbers).toEqual([...p.numbers].sort((x, y) => x - y));
    expect(parsed[0]!.leases + parsed[1]!.leases).toBeGreaterThan(0);

    const store = openStore(path);
    cleanups.unshift(() => store.close());
    // Each key holds the write with the highest generation that reached it, whichever process wrote last.
    const highest = new Map<string, number>();
    for (const w of parsed.flatMap((p) => p.writes))
      highest.set(w.key, Math.max(highest.get(w.key) ?? 0, w.generation));
    const rows = store.fingerprints.getMany('stock', [...highest.keys()]);
    for (const [key, generation] of highest) expect(rows.get(key)?.generation, key).toBe(generation);
    expect(store.db.prepare('SELECT count(*) FROM schema_migrations').pluck().get()).toBeGreaterThan(0);
  });
});
