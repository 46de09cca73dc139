/**
 * npm run bench:sandbox [-- --products 100000] [-- --seconds 5] [-- --bulk-requests 100]
 *
 * Starts the sandbox in a child process (so the load generator does not share its event loop),
 * with the demo seed plus N bulk products, then measures:
 *  - GET /products?per_page=100 for S seconds with 1 and 10 requests in flight (keep-alive),
 *  - PATCH /products/stock/bulk with 1000 items (random SKUs and quantities), sequentially,
 *  - the sandbox's RSS after seeding and its peak RSS (VmHWM) at the end.
 * Prints a Markdown table to paste into the "Sandbox" section of bench/RESULTS.md.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { createInterface } from 'node:readline';
import { Agent, request } from 'undici';
import { hasFlag, numberArg } from './support/benchArgs.js';

function memory(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string): number => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rss: Math.round(kb('VmRSS') / 1024), hwm: Math.round(kb('VmHWM') / 1024) };
}

const percentile = (sorted: number[], p: number): number =>
  Math.round((sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0) * 100) / 100;

async function main(): Promise<void> {
  const products = numberArg('products', 100_000);
  const seconds = numberArg('seconds', 5);
  const bulkRequests = numberArg('bulk-requests', 100);
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'bench/sandbox.ts', '--serve', '--products', String(products)],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  try {
    await measure(child, products, seconds, bulkRequests);
  } finally {
    child.kill('SIGTERM');
  }
}

async function measure(
  child: ChildProcess,
  products: number,
  seconds: number,
  bulkRequests: number,
): Promise<void> {
  const line = await new Promise<string>((resolve) =>
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).once('line', resolve),
  );
  const { url, key, startMs } = JSON.parse(line) as { url: string; key: string; startMs: number };
  const afterSeed = memory(child.pid as number);
  const dispatcher = new Agent({ connections: 16, pipelining: 1 });
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };

  const call = async (method: 'GET' | 'PATCH', path: string, body?: string): Promise<number> => {
    const t = performance.now();
    const res = await request(`${url}${path}`, { method, headers, body, dispatcher });
    await res.body.text();
    if (res.statusCode !== 200) throw new Error(`${method} ${path}: ${res.statusCode}`);
    return performance.now() - t;
  };

  const rows: string[] = [];
  for (const inFlight of [1, 10]) {
    const latencies: number[] = [];
    const until = performance.now() + seconds * 1000;
    let page = 0;
    const lastPage = Math.ceil((products + 240) / 100);
    await Promise.all(
      Array.from({ length: inFlight }, async () => {
        while (performance.now() < until)
          latencies.push(await call('GET', `/products?per_page=100&page=${(page++ % lastPage) + 1}`));
      }),
    );
    latencies.sort((a, b) => a - b);
    rows.push(
      `| GET /products?per_page=100 | ${inFlight} | ${latencies.length} | ${Math.round(latencies.length / seconds)} | ${percentile(latencies, 50)} | ${percentile(latencies, 95)} |`,
    );
  }

  const sku = (n: number): string => `BULK-${String(n).padStart(6, '0')}`;
  const bodies = Array.from({ length: bulkRequests }, (_, r) =>
    JSON.stringify({
      items: Array.from({ length: 1000 }, (_, i) => ({
        sku: sku(((r * 7919 + i * 104_729) % products) + 1),
        quantity: (r + i) % 500,
      })),
    }),
  );
  await call('PATCH', '/products/stock/bulk', bodies[0]);
  const bulk: number[] = [];
  const started = performance.now();
  for (const body of bodies) bulk.push(await call('PATCH', '/products/stock/bulk', body));
  const elapsed = (performance.now() - started) / 1000;
  bulk.sort((a, b) => a - b);
  rows.push(
    `| PATCH /products/stock/bulk (1000 items) | 1 | ${bulk.length} | ${Math.round(bulk.length / elapsed)} | ${percentile(bulk, 50)} | ${percentile(bulk, 95)} |`,
  );
  const end = memory(child.pid as number);
  await dispatcher.close();

  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  process.stdout.write(
    [
      `Machine: ${cpus().length} cores (${cpu.trim()}), Node ${process.version}; ${new Date().toISOString().slice(0, 10)}.`,
      `Catalog: demo seed + ${products} bulk products (start-up incl. seeding ${Math.round(startMs)} ms).`,
      '',
      '| request | in flight | requests | req/s | p50 ms | p95 ms |',
      '|---|---|---|---|---|---|',
      ...rows,
      '',
      `Sandbox memory: RSS ${afterSeed.rss} MiB after seeding, ${end.rss} MiB at the end, peak ${end.hwm} MiB.`,
      '',
    ].join('\n'),
  );
}

if (hasFlag('serve')) {
  const { startSandbox } = await import('../src/sandbox/index.js');
  const started = performance.now();
  const sandbox = await startSandbox({ extraProducts: numberArg('products', 100_000), logLevel: 'warn' });
  process.stdout.write(
    `${JSON.stringify({ url: sandbox.url, key: sandbox.keys.primary, startMs: performance.now() - started })}\n`,
  );
  const stop = (): void => void sandbox.close().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  // The parent holds our stdin: when it goes away, so do we.
  process.stdin.on('end', stop).resume();
} else {
  await main();
}
