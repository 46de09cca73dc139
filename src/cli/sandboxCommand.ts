import { startSandbox } from '../sandbox/index.js';

interface SandboxFlags {
  host: string;
  port: number;
  db: string;
  seed: 'demo' | 'empty';
  faults?: string;
  faultSeed?: number;
  logRequests?: string;
  ordersOrder: 'desc' | 'asc';
  extraProducts?: number;
  bulkMax?: number;
  logLevel: string;
}

/** `erp-sync sandbox`: serves API v2 locally; prints one JSON "ready" line on stdout, logs on stderr. */
export async function sandboxCommand(flags: SandboxFlags): Promise<void> {
  const sandbox = await startSandbox({
    host: flags.host,
    port: flags.port,
    db: flags.db,
    seed: flags.seed,
    faults: flags.faults ?? null,
    ...(flags.faultSeed !== undefined ? { faultSeed: flags.faultSeed } : {}),
    ...(flags.logRequests !== undefined ? { logRequests: flags.logRequests } : {}),
    ordersOrder: flags.ordersOrder,
    ...(flags.extraProducts !== undefined ? { extraProducts: flags.extraProducts } : {}),
    ...(flags.bulkMax !== undefined ? { bulkMax: flags.bulkMax } : {}),
    logLevel: flags.logLevel,
  });
  const stopped = new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      void sandbox.close().then(resolve, resolve);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  process.stdout.write(`${JSON.stringify({ event: 'ready', url: sandbox.url, keys: sandbox.keys })}\n`);
  await stopped;
}
