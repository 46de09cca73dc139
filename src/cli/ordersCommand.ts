import type { Command } from 'commander';
import { loadConfig } from '../config.js';
import { createLogger } from '../logger.js';
import { openStore } from '../store/index.js';
import { closeSyncContext, createSyncContext } from '../sync/context.js';
import { runOrders } from '../sync/orders.js';
import { formatSummaryTable } from '../sync/summary.js';

export function registerOrdersCommand(program: Command): void {
  const orders = program.command('orders').description('platform orders the ERP has not taken yet');

  orders
    .command('parked')
    .description('orders parked for review, with the reason the ERP gave')
    .option('--json', 'print as JSON', false)
    .action((flags: { json: boolean }, command: Command) => {
      const config = loadConfig({ file: command.optsWithGlobals<{ config?: string }>().config });
      const store = openStore(config.store.path);
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
    });

  orders
    .command('retry')
    .description('retry parked orders now (all, or the given platform order ids), then run the orders poll')
    .argument('[ids...]', 'platform order ids')
    .action(async (ids: string[], _flags: unknown, command: Command) => {
      const numbers = ids.map((id) => Number(id));
      const bad = ids.filter((_, i) => !Number.isInteger(numbers[i]) || numbers[i]! <= 0);
      if (bad.length > 0) {
        process.stderr.write(`erp-sync: not an order id: ${bad.join(', ')}\n`);
        process.exitCode = 64;
        return;
      }
      const config = loadConfig({ file: command.optsWithGlobals<{ config?: string }>().config });
      const logger = createLogger({ level: config.log.level });
      const ctx = createSyncContext(config, logger);
      try {
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
    });
}
