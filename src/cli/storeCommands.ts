import { existsSync } from 'node:fs';
import { InvalidArgumentError, type Command } from 'commander';
import { loadConfig } from '../config.js';
import { describeSource } from '../domain/records.js';
import { openStore, StoreError, type Store } from '../store/index.js';
import { formatOrderLinks } from './ordersCommand.js';

export interface RejectsOptions {
  pipeline?: string;
  all: boolean;
  json: boolean;
  limit?: number;
}

/** `erp-sync rejects`: open (or, with --all, also resolved) rejects, newest first. */
export function formatRejects(store: Store, options: RejectsOptions): string {
  const rejects = store.rejects.list({
    pipeline: options.pipeline,
    includeResolved: options.all,
    limit: options.limit,
  });
  if (options.json) return `${JSON.stringify(rejects, null, 2)}\n`;
  if (rejects.length === 0) {
    const scope = options.pipeline ? ` for ${options.pipeline}` : '';
    return `no ${options.all ? '' : 'open '}rejects${scope}\n`;
  }
  const header = ['pipeline', 'key', 'reason', 'where', 'seen', 'first seen', 'last seen'];
  if (options.all) header.push('resolved');
  const rows = rejects.map((r) => {
    const cells = [
      r.pipeline,
      r.key,
      r.reason,
      describeSource(r.source ?? undefined),
      String(r.count),
      r.firstSeen,
      r.lastSeen,
    ];
    if (options.all) cells.push(r.resolvedAt ?? '');
    return cells;
  });
  const open = store.rejects.countOpen(options.pipeline);
  return `${table(header, rows)}\n${open} open\n`;
}

/** `erp-sync links`: every SKU (and variant SKU) and the platform product (and variant) it is. */
export function* productLinkLines(store: Store, options: { json: boolean }): Generator<string> {
  if (options.json) {
    // Streamed: a catalog of 100k products never sits in memory as one string.
    let first = true;
    yield '[';
    for (const link of store.productLinks.all()) {
      yield `${first ? '\n' : ',\n'}  ${JSON.stringify(link)}`;
      first = false;
    }
    yield first ? ']\n' : '\n]\n';
    return;
  }
  const count = store.productLinks.count();
  if (count === 0) {
    yield 'no product links (the catalog pipeline has not run yet?)\n';
    return;
  }
  yield 'sku\tvariant_sku\tproduct_id\tvariant_id\tplatform_updated_at\n';
  for (const l of store.productLinks.all()) {
    yield `${l.sku}\t${l.variantSku ?? ''}\t${l.productId}\t${l.variantId ?? ''}\t${l.platformUpdatedAt ?? ''}\n`;
  }
  yield `${count} links\n`;
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.min(60, Math.max(h.length, ...rows.map((r) => r[i]!.length))));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

/** The store path from --store, or from the configuration (only its `store` section is used). */
function storePath(command: Command, flags: { store?: string }): string {
  if (flags.store) return flags.store;
  const globals = command.optsWithGlobals<{ config?: string }>();
  // Listing the store needs no API: placeholders keep a missing key from refusing the config.
  const config = loadConfig({
    file: globals.config,
    overrides: { api: { baseUrl: 'http://localhost/api/v2', apiKey: 'unused-by-store-commands' } },
  });
  return config.store.path;
}

/** Opens an existing store for a listing; a listing never creates one (a mistyped path would look empty). */
function openExistingStore(path: string): Store {
  if (path !== ':memory:' && !existsSync(path)) {
    throw new StoreError(
      `no store at ${path}: nothing has run with this store.path yet, or the path is wrong`,
    );
  }
  return openStore(path);
}

/** A positive whole number for --limit, or a usage error naming the option. */
export function parseLimit(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('must be a whole number of at least 1');
  return n;
}

let quietPipe = false;

/**
 * Output piped into a reader that stops early (`| head`) ends the command quietly, as Unix tools
 * do, instead of an EPIPE stack trace.
 */
export function endQuietlyOnClosedPipe(): void {
  if (quietPipe) return;
  quietPipe = true;
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(process.exitCode ?? 0);
  });
}

async function write(lines: Iterable<string>): Promise<void> {
  for (const text of lines) {
    if (!process.stdout.write(text)) await new Promise((resolve) => process.stdout.once('drain', resolve));
  }
}

export function registerStoreCommands(program: Command): void {
  program
    .command('rejects')
    .description('items refused by the ERP adapter, the validation or the platform, with reason and place')
    .option('-p, --pipeline <name>', 'only this pipeline (stock, prices, products, orders, ...)')
    .option('--all', 'include resolved rejects', false)
    .option('--limit <n>', 'at most this many', parseLimit)
    .option('--json', 'print as JSON', false)
    .option('--store <file>', 'store file (default: store.path of the configuration)')
    .action((flags: RejectsOptions & { store?: string }, command: Command) => {
      endQuietlyOnClosedPipe();
      const store = openExistingStore(storePath(command, flags));
      try {
        process.stdout.write(formatRejects(store, flags));
      } finally {
        store.close();
      }
    });

  program
    .command('links')
    .description(
      'product links (SKU / variant SKU <-> platform product / variant), or order links with --orders',
    )
    .option('--orders', 'list order links (platform order id <-> ERP reference) instead', false)
    .option('--limit <n>', 'with --orders: at most this many', parseLimit, 100)
    .option('--json', 'print as JSON', false)
    .option('--store <file>', 'store file (default: store.path of the configuration)')
    .action(
      async (flags: { orders: boolean; limit: number; json: boolean; store?: string }, command: Command) => {
        endQuietlyOnClosedPipe();
        const store = openExistingStore(storePath(command, flags));
        try {
          if (flags.orders)
            process.stdout.write(formatOrderLinks(store, { json: flags.json, limit: flags.limit }));
          else await write(productLinkLines(store, { json: flags.json }));
        } finally {
          store.close();
        }
      },
    );
}
