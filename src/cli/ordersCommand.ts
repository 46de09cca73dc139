import type { Command } from 'commander';
import { loadConfig } from '../config.js';
import { createLogger } from '../createLogger.js';
import type { StoreConfig } from '../config/storeConfigSchema.js';
import { openStoreFromConfig, type Store } from '../store/index.js';
import { closeSyncContext, createSyncContext } from '../sync/context.js';
import { runOrders } from '../sync/orders/orders.js';
import { formatSummaryTable } from '../sync/frame/summary.js';
import { refuseOtherAccount } from './accountGuard.js';
import { EXIT_USAGE } from './exitCodes.js';
import type { GlobalFlags } from './globalFlags.js';

/** `erp-sync links --orders`: platform order id, ERP reference, state, times. */
export function formatOrderLinks(store: Store, options: { json: boolean; limit: number }): string {
  const links = store.orders.links.list(options.limit);
  if (options.json) return `${JSON.stringify(links, null, 2)}\n`;
  if (links.length === 0) return 'no order links\n';
  const rows = links.map((l) => [
    String(l.platformOrderId),
    l.erpRef,
    `${l.status}/${l.paymentStatus}${l.pendingChange ? ' (change pending)' : ''}`,
    l.acknowledgedAt ? 'acknowledged' : 'not acknowledged',
    l.importedAt,
    l.updatedAt,
  ]);
  const header = ['order', 'erp ref', 'state', 'erp', 'imported', 'updated'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  const total = store.orders.links.count();
  const more = total > links.length ? `\n(${links.length} of ${total}; --limit N for more)` : '';
  return `${[line(header), ...rows.map(line)].join('\n')}${more}\n`;
}

/** `erp-sync orders parked`. */
export function ordersParkedCommand(flags: { json: boolean }, command: Command): void {
  const store = openStoreFromConfig(storeConfigOf(command), { mustExist: true });
  try {
    const parked = store.orders.parked.list();
    if (flags.json) {
      process.stdout.write(`${JSON.stringify(parked, null, 2)}\n`);
      return;
    }
    if (parked.length === 0) {
      process.stdout.write('no parked orders\n');
      return;
    }
    for (const p of parked) {
      process.stdout.write(
        `#${p.platformOrderId} (${p.number ?? '?'})  attempts ${p.attempts}  since ${p.firstParkedAt}  next ${p.nextAttemptAt}\n    ${p.reason}\n`,
      );
    }
  } finally {
    store.close();
  }
}

/** `erp-sync orders retry [ids...]`. */
export async function ordersRetryCommand(ids: string[], _flags: unknown, command: Command): Promise<void> {
  const numbers = ids.map((id) => Number(id));
  const bad = ids.filter((_, i) => !Number.isInteger(numbers[i]) || numbers[i]! <= 0);
  if (bad.length > 0) {
    process.stderr.write(`erp-sync: not an order id: ${bad.join(', ')}\n`);
    process.exitCode = EXIT_USAGE;
    return;
  }
  const config = loadConfig({
    file: command.optsWithGlobals<GlobalFlags>().config,
    account: command.optsWithGlobals<GlobalFlags>().account,
  });
  const logger = createLogger({ level: config.log.level, pretty: Boolean(process.stderr.isTTY) });
  const ctx = await createSyncContext(config, logger);
  try {
    const refused = await refuseOtherAccount(ctx, { dryRun: false });
    if (refused !== undefined) {
      process.exitCode = refused;
      return;
    }
    const parked = ctx.store.orders.parked;
    const unknown = numbers.filter((id) => !parked.get(id));
    if (unknown.length > 0) process.stderr.write(`erp-sync: not parked: ${unknown.join(', ')}\n`);
    const targets = numbers.filter((id) => parked.get(id));
    if (numbers.length > 0 && targets.length === 0) {
      process.exitCode = 1;
      return;
    }
    const made = parked.makeDue(numbers.length > 0 ? targets : undefined);
    const summary = await runOrders(ctx, { full: false, dryRun: false });
    const still = (numbers.length > 0 ? targets : []).filter((id) => parked.get(id));
    process.stdout.write(`${formatSummaryTable([summary])}\n`);
    process.stdout.write(
      `retried ${made} parked order(s); still parked: ${parked.count()}${still.length ? ` (${still.join(', ')})` : ''}\n`,
    );
    process.exitCode = summary.error ? 1 : 0;
  } finally {
    await closeSyncContext(ctx);
  }
}

/** Reading the store needs no API: placeholders keep a missing key from refusing the config. */
export function storeConfigOf(command: Command): StoreConfig {
  const config = loadConfig({
    file: command.optsWithGlobals<GlobalFlags>().config,
    account: command.optsWithGlobals<GlobalFlags>().account,
    overrides: { api: { baseUrl: 'http://localhost/api/v2', apiKey: 'unused-by-store-commands' } },
  });
  return config.store;
}
