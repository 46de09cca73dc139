import { InvalidArgumentError, type Command } from 'commander';

const integer =
  (name: string, min: number, max = Number.MAX_SAFE_INTEGER) =>
  (value: string): number => {
    if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max)
      throw new InvalidArgumentError(`${name} must be an integer from ${min} to ${max}`);
    return Number(value);
  };

const oneOf =
  (values: string[]) =>
  (value: string): string => {
    if (!values.includes(value)) throw new InvalidArgumentError(`expected one of: ${values.join(', ')}`);
    return value;
  };

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
  logLevel: string;
}

/** `erp-sync sandbox`: serves API v2 locally; prints one JSON "ready" line on stdout, logs on stderr. */
export function registerSandboxCommand(program: Command): void {
  program
    .command('sandbox')
    .description(
      'Run the API v2 sandbox: a complete local implementation of the Commerce Management Service API',
    )
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port (0 picks a free one)', integer('--port', 0, 65535), 8787)
    .option('--db <path>', "SQLite database: ':memory:' or a file (reused if it exists)", ':memory:')
    .option('--seed <kind>', 'demo | empty', oneOf(['demo', 'empty']), 'demo')
    .option(
      '--faults <spec>',
      'fault spec, e.g. "latency=20-200,error_rate=0.05,rate_limit=50/s,drop_rate=0.01,stall_rate=0.01"',
    )
    .option('--fault-seed <n>', 'seed for reproducible faults', integer('--fault-seed', 0))
    .option('--log-requests <file>', 'append one JSON line per request to FILE')
    .option(
      '--orders-order <order>',
      'GET /orders order: desc (newest first) | asc',
      oneOf(['desc', 'asc']),
      'desc',
    )
    .option(
      '--extra-products <n>',
      'add N bulk products BULK-000001.. to the primary company',
      integer('--extra-products', 0),
    )
    .option('--log-level <level>', 'sandbox log level (stderr)', 'info')
    .action(async (flags: SandboxFlags) => {
      // Loaded here, not at start-up: every other command would pay for fastify and the seed.
      const { startSandbox } = await import('../sandbox/index.js');
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
    });
}
