import type { Command } from 'commander';
import { loadDeployment } from '../config.js';
import type { StatusReport } from '../diagnostics/StatusReport.js';
import { buildDaemonStatus } from '../queue/daemonStatus.js';
import { openStoreFromConfig, processIsGone, type Store, type SyncRun } from '../store/index.js';
import { PIPELINE_ORDER } from '../domain/pipelineNames.js';
import { describeAccount } from '../sync/StoreAccountMismatchError.js';
import { formatDaemonStatus } from './formatDaemonStatus.js';
import type { GlobalFlags } from './globalFlags.js';

export function buildStatusReport(store: Store): StatusReport {
  const orders = store.orders;
  const erpOrders: Record<string, number> = {};
  for (const record of orders.outgoing.list()) erpOrders[record.state] = (erpOrders[record.state] ?? 0) + 1;
  const pipelines = PIPELINE_ORDER;
  return {
    store: store.path,
    account: store.account.get() ?? null,
    pipelines: pipelines.map((pipeline) => {
      const run = store.runs.last(pipeline);
      return {
        pipeline,
        status: run ? runState(run) : null,
        startedAt: run?.startedAt ?? null,
        finishedAt: run?.finishedAt ?? null,
        error: run?.error ?? null,
        counts: run?.counts ?? null,
      };
    }),
    rejects: {
      open: store.rejects.countOpen(),
      byPipeline: Object.fromEntries(
        pipelines.map((p) => [p, store.rejects.countOpen(p)]).filter(([, n]) => n !== 0),
      ),
    },
    parkedOrders: orders.parked.list().map((p) => ({
      orderId: p.platformOrderId,
      number: p.number,
      reason: p.reason,
      attempts: p.attempts,
      firstParkedAt: p.firstParkedAt,
      nextAttemptAt: p.nextAttemptAt,
    })),
    orders: {
      links: orders.links.count(),
      seen: orders.seen.counts(),
      events: orders.events.counts(),
      erpOrders,
    },
    cursors: store.cursors.all(),
  };
}

/**
 * A run recorded as running whose process is gone (killed, the host rebooted) was interrupted:
 * nothing will finish it. A process of another host is taken as alive.
 */
export function runState(run: SyncRun): string {
  return run.status === 'running' && run.owner && processIsGone(run.owner) ? 'interrupted' : run.status;
}

export function formatStatusReport(report: StatusReport): string {
  const lines: string[] = [
    `store: ${report.store}`,
    `account: ${report.account ? `${describeAccount(report.account).replace(/^the account /, '')} (since ${report.account.boundAt})` : 'none yet (the first run binds the store to its account)'}`,
    ...(report.account?.previousBaseUrl
      ? [`  address changed from ${report.account.previousBaseUrl} at ${report.account.movedAt ?? '?'}`]
      : []),
    '',
    'last runs:',
  ];
  for (const p of report.pipelines) {
    if (!p.status) {
      lines.push(`  ${p.pipeline.padEnd(11)} never run`);
      continue;
    }
    const counts = p.counts ?? {};
    const summary = ['read', 'sent', 'applied', 'rejected', 'failed']
      .map((key) => `${key} ${String(counts[key] ?? 0)}`)
      .join(', ');
    const when = p.finishedAt ?? `started ${p.startedAt}`;
    lines.push(`  ${p.pipeline.padEnd(11)} ${p.status.padEnd(11)} ${when}  ${summary}`);
    if (p.error) lines.push(`  ${''.padEnd(11)} error: ${p.error}`);
  }
  lines.push('', `open rejects: ${report.rejects.open}`);
  for (const [pipeline, n] of Object.entries(report.rejects.byPipeline)) lines.push(`  ${pipeline}: ${n}`);
  lines.push('', `parked orders: ${report.parkedOrders.length}`);
  for (const p of report.parkedOrders) {
    lines.push(
      `  #${p.orderId} (${p.number ?? '?'}) attempts ${p.attempts}, next ${p.nextAttemptAt}: ${p.reason}`,
    );
  }
  const seen = Object.entries(report.orders.seen)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
  lines.push('', `order links: ${report.orders.links}${seen ? ` (orders found: ${seen})` : ''}`);
  const erp = Object.entries(report.orders.erpOrders)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
  if (erp) lines.push(`ERP-origin orders: ${erp}`);
  const events = Object.entries(report.orders.events)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
  // "waiting": events naming an ERP reference no order has yet, tried again every feedback run.
  if (events) lines.push(`ERP events: ${events}`);
  lines.push('', 'cursors:');
  for (const c of report.cursors) lines.push(`  ${c.name} = ${c.value}  (${c.updatedAt})`);
  return `${lines.join('\n')}\n`;
}

/** `erp-sync status`: `--account`'s, else every account of the configuration, one after the other. */
export async function statusCommand(flags: { json: boolean }, command: Command): Promise<void> {
  const globals = command.optsWithGlobals<GlobalFlags>();
  const deployment = loadDeployment({
    file: globals.config,
    account: globals.account,
    overrides: { api: { baseUrl: 'http://localhost/api/v2', apiKey: 'unused-by-status' } },
  });
  const reports: { account: string; report: StatusReport }[] = [];
  for (const { name, config } of deployment.accounts) {
    // Looking never creates a store: a mistyped path would show an empty one.
    const store = openStoreFromConfig(config.store, { mustExist: true });
    try {
      const report = buildStatusReport(store);
      report.daemon = await buildDaemonStatus(config, store);
      reports.push({ account: name, report });
    } finally {
      store.close();
    }
  }
  // One account (the only one, or --account's): the report as it always was.
  if (!deployment.multi || globals.account !== undefined) {
    const { report } = reports[0]!;
    process.stdout.write(
      flags.json
        ? `${JSON.stringify(report, null, 2)}\n`
        : formatStatusReport(report) + formatDaemonStatus(report.daemon!),
    );
    return;
  }
  process.stdout.write(
    flags.json
      ? `${JSON.stringify(
          reports.map(({ account, report }) => ({ account, status: report })),
          null,
          2,
        )}\n`
      : reports
          .map(
            ({ account, report }) =>
              `== account ${account}\n${formatStatusReport(report)}${formatDaemonStatus(report.daemon!)}`,
          )
          .join('\n'),
  );
}
