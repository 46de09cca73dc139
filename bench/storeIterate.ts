/**
 * npm run bench:store-iterate [-- --links 300000] [-- --heap 32]
 *
 * What reading every product link of a PostgreSQL store (`productLinks.all()`, as `links --json`
 * does) holds in the process: a fresh schema (127.0.0.1:5432, db test) gets --links links, then a
 * child process only iterates them with V8's old space limited to --heap MB (the store's worker
 * thread inherits the limit): rows read, its CPU and peak RSS, or how it failed. Run it on two
 * commits to compare (the child runs this checkout's store).
 */
import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { openPostgresStore } from '../src/store/openPostgresStore.js';
import { numberArg, stringArg } from './support/benchArgs.js';
import { machineLine } from './support/machineLine.js';

const URL = process.env.ERP_SYNC_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const CHUNK = 10_000;
const readSchema = stringArg('read');

if (readSchema) {
  const store = openPostgresStore({ url: URL, schema: readSchema });
  const cpu = process.cpuUsage();
  let rows = 0;
  for (const _link of store.productLinks.all()) rows += 1;
  const used = process.cpuUsage(cpu);
  store.close();
  const maxRssMb = Math.round(process.resourceUsage().maxRSS / 1024);
  process.stdout.write(
    `${JSON.stringify({ rows, cpuMs: Math.round((used.user + used.system) / 1000), maxRssMb })}\n`,
  );
} else {
  const links = numberArg('links', 300_000);
  const heapMb = numberArg('heap', 32);
  const schema = `bench_iterate_${process.pid}`;
  const store = openPostgresStore({ url: URL, schema });
  try {
    for (let from = 0; from < links; from += CHUNK)
      store.productLinks.upsertMany(
        Array.from({ length: Math.min(CHUNK, links - from) }, (_, i) => ({
          sku: `ITER-${String(from + i).padStart(8, '0')}`,
          variantSku: null,
          productId: 1 + from + i,
          variantId: null,
          platformUpdatedAt: '2026-11-26T00:00:00.000Z',
        })),
      );
    const load = loadavg()[0]!.toFixed(2);
    const child = spawnSync(
      process.execPath,
      [...process.execArgv, fileURLToPath(import.meta.url), '--read', schema],
      {
        env: {
          ...process.env,
          NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --max-old-space-size=${heapMb}`,
        },
        encoding: 'utf8',
        timeout: 120_000,
      },
    );
    const result =
      child.status === 0
        ? child.stdout.trim()
        : `failed (exit ${child.status ?? child.signal}): ${/(StoreError: [^\n]*|FATAL ERROR: [^\n]*)/.exec(child.stderr)?.[1] ?? child.stderr.slice(-300)}`;
    process.stdout.write(
      `${machineLine()} Load ${load}. ${links} links, old space ${heapMb} MB: ${result}\n`,
    );
  } finally {
    store.db.exec(`DROP SCHEMA "${schema}" CASCADE`);
    store.close();
  }
}
