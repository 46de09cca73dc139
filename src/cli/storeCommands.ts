import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline/promises';
import type { Command } from 'commander';
import { describeSource } from '../domain/records.js';
import type { StoreConfig } from '../config/storeConfigSchema.js';
import {
  deleteStore,
  describeStoreConfig,
  openStoreFromConfig,
  processIsGone,
  StoreNotFoundError,
  type Store,
} from '../store/index.js';
import { describeAccount } from '../sync/StoreAccountMismatchError.js';
import { EXIT_FAILED, EXIT_USAGE } from './exitCodes.js';
import { endQuietlyOnClosedPipe } from './endQuietlyOnClosedPipe.js';
import { formatOrderLinks, storeConfigOf } from './ordersCommand.js';

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

/** The store file from --store, or the configuration's store (only its `store` section is used). */
function storeConfig(command: Command, flags: { store?: string }): StoreConfig {
  return flags.store === undefined ? storeConfigOf(command) : { path: flags.store };
}

/** Opens an existing store for a listing; a listing never creates one (a mistyped path would look empty). */
function openExistingStore(config: StoreConfig): Store {
  return openStoreFromConfig(config, { mustExist: true });
}

async function write(lines: Iterable<string>): Promise<void> {
  for (const text of lines) {
    if (!process.stdout.write(text)) await new Promise((resolve) => process.stdout.once('drain', resolve));
  }
}

/** `erp-sync rejects`. */
export function rejectsCommand(flags: RejectsOptions & { store?: string }, command: Command): void {
  endQuietlyOnClosedPipe();
  const store = openExistingStore(storeConfig(command, flags));
  try {
    process.stdout.write(formatRejects(store, flags));
  } finally {
    store.close();
  }
}

/** `erp-sync links [--orders]`. */
export async function linksCommand(
  flags: { orders: boolean; limit: number; json: boolean; store?: string },
  command: Command,
): Promise<void> {
  endQuietlyOnClosedPipe();
  const store = openExistingStore(storeConfig(command, flags));
  try {
    if (flags.orders) process.stdout.write(formatOrderLinks(store, { json: flags.json, limit: flags.limit }));
    else await write(productLinkLines(store, { json: flags.json }));
  } finally {
    store.close();
  }
}

/**
 * `erp-sync store reset`: the explicit way to start over (another account, a store to rebuild).
 * Deletes the store (its file, or its PostgreSQL schema); the next run fills a new one and binds
 * it to the configured account.
 */
async function resetStore(config: StoreConfig, flags: { yes: boolean }): Promise<number> {
  const path = describeStoreConfig(config);
  if (config.type !== 'postgres' && (config.path === ':memory:' || !existsSync(config.path))) {
    process.stdout.write(`no store at ${path}: nothing to reset\n`);
    return 0;
  }
  let store: Store;
  try {
    store = openStoreFromConfig(config, { mustExist: true });
  } catch (error) {
    if (!(error instanceof StoreNotFoundError)) throw error;
    process.stdout.write(`no store at ${path}: nothing to reset\n`);
    return 0;
  }
  let what: string;
  try {
    const running = store.runs
      .recent(50)
      .filter((r) => r.status === 'running' && r.owner && !processIsGone(r.owner));
    if (running.length) {
      process.stderr.write(
        `erp-sync: a run of ${running.map((r) => r.pipeline).join(', ')} is using ${path} (process ${running[0]!.owner}); stop it first\n`,
      );
      return EXIT_FAILED;
    }
    const account = store.account.get();
    what =
      `${account ? describeAccount(account) : 'no account yet'}; ` +
      `${store.productLinks.count()} product links, ${store.orders.links.count()} order links, ` +
      `${store.rejects.countOpen()} open rejects`;
  } finally {
    store.close();
  }
  if (!flags.yes) {
    if (!process.stdin.isTTY) {
      process.stderr.write(
        `erp-sync: store reset deletes ${path} (${what}); confirm on a terminal, or add --yes\n`,
      );
      return EXIT_USAGE;
    }
    const prompt = createInterface({ input: process.stdin, output: process.stderr });
    const answer = await prompt.question(
      `Delete the store ${path} (${what})?\nLinks, fingerprints, cursors and rejects are forgotten; the next run starts over. [y/N] `,
    );
    prompt.close();
    if (!/^y(es)?$/i.test(answer.trim())) {
      process.stdout.write('nothing deleted\n');
      return EXIT_FAILED;
    }
  }
  deleteStore(config);
  process.stdout.write(`deleted ${path}; the next run starts a new store for the configured account\n`);
  return 0;
}

/** `erp-sync store reset`. */
export async function storeResetCommand(
  flags: { yes: boolean; store?: string },
  command: Command,
): Promise<void> {
  process.exitCode = await resetStore(storeConfig(command, flags), flags);
}
