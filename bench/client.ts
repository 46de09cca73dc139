/**
 * Requests per second of the API client for a simple GET (`GET /account`) against the sandbox,
 * with keep-alive on and off, sequential and with 10 requests in flight.
 *
 *   npm run bench:client [-- --seconds 5]
 *
 * The sandbox runs in a child process so that it does not share the client's event loop.
 */
import { spawn } from 'node:child_process';
import { availableParallelism, cpus } from 'node:os';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createApiClient } from '../src/api/index.js';
import { hasFlag, numberArg } from './support/benchArgs.js';

interface Ready {
  url: string;
  key: string;
}

async function serve(): Promise<void> {
  const { startSandbox } = await import('../src/sandbox/index.js');
  const sandbox = await startSandbox({ port: 0, seed: 'demo' });
  process.stdout.write(`${JSON.stringify({ url: sandbox.url, key: sandbox.keys.primary })}\n`);
  process.on('SIGTERM', () => void sandbox.close().then(() => process.exit(0)));
}

async function startServer(): Promise<{ ready: Ready; stop: () => void }> {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--serve'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout });
  const ready = await new Promise<Ready>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`sandbox exited with ${code}`)));
    lines.once('line', (line) => resolve(JSON.parse(line) as Ready));
  });
  return { ready, stop: () => child.kill('SIGTERM') };
}

interface Result {
  keepAlive: boolean;
  concurrency: number;
  requests: number;
  perSecond: number;
  p50: number;
  p99: number;
}

async function run(ready: Ready, keepAlive: boolean, concurrency: number, seconds: number): Promise<Result> {
  const client = createApiClient({
    baseUrl: ready.url,
    apiKey: ready.key,
    keepAlive,
    maxSockets: 10,
    retries: 0,
  });
  for (let i = 0; i < 50; i++) await client.account.get(); // warm-up
  const latencies: number[] = [];
  const endAt = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < endAt) {
        const t0 = performance.now();
        await client.account.get();
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  await client.close();
  latencies.sort((a, b) => a - b);
  const at = (q: number) => Math.round((latencies[Math.floor(q * (latencies.length - 1))] ?? 0) * 100) / 100;
  return {
    keepAlive,
    concurrency,
    requests: latencies.length,
    perSecond: Math.round(latencies.length / elapsed),
    p50: at(0.5),
    p99: at(0.99),
  };
}

async function main(): Promise<void> {
  const seconds = numberArg('seconds', 5);
  if (!(seconds > 0)) throw new Error('--seconds takes a positive number of seconds per row');
  const { ready, stop } = await startServer();
  try {
    const results: Result[] = [];
    for (const concurrency of [1, 10]) {
      for (const keepAlive of [true, false]) results.push(await run(ready, keepAlive, concurrency, seconds));
    }
    console.log(
      `machine: ${availableParallelism()} cores, ${cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version}`,
    );
    console.log(
      `date: ${new Date().toISOString()}; ${seconds} s per row; GET /account; client maxSockets 10\n`,
    );
    console.log('| keep-alive | in flight | requests | req/s | p50 ms | p99 ms |');
    console.log('|---|---|---|---|---|---|');
    for (const r of results) {
      console.log(
        `| ${r.keepAlive ? 'on' : 'off'} | ${r.concurrency} | ${r.requests} | ${r.perSecond} | ${r.p50} | ${r.p99} |`,
      );
    }
  } finally {
    stop();
  }
}

if (hasFlag('serve')) await serve();
else await main();
