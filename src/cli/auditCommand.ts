import type { Command } from 'commander';
import { loadConfig } from '../config.js';
import { describeError } from '../domain/errors.js';
import { createLogger } from '../createLogger.js';
import { runAudit, type AuditFinding, type AuditReport } from '../diagnostics/audit.js';
import { closeSyncContext, createSyncContext } from '../sync/context.js';
import { operatorClientBounds } from '../sync/createPlatformClient.js';
import { AUDIT_PIPELINES, type AuditPipeline } from '../domain/pipelineNames.js';
import type { HealOutcome } from '../sync/push/healDrift.js';
import { formatSummaryTable } from '../sync/frame/summary.js';
import { endQuietlyOnClosedPipe } from './endQuietlyOnClosedPipe.js';
import { healAuditDrift, type AuditFix } from './healAuditDrift.js';
import { StoreNotFoundError } from '../store/index.js';
import type { GlobalFlags } from './globalFlags.js';

export interface AuditCommandOptions {
  configFile?: string;
  account?: string | undefined;
  pipelines?: string[];
  json: boolean;
  max: number;
  fix: boolean;
  /** With fix: push here even when a daemon runs. */
  inline: boolean;
  /** With fix, through the daemon: wait until it has sent the pushes. */
  wait: boolean;
}

const VALUE = (value: unknown): string =>
  value === null || value === undefined
    ? 'none'
    : typeof value === 'object'
      ? JSON.stringify(value)
      : String(value);

function formatFinding(finding: AuditFinding): string {
  const what =
    finding.kind === 'order_not_in_erp'
      ? `order ${finding.key} (${VALUE(finding.platform)}) is not in the ERP`
      : finding.kind === 'order_gone'
        ? `order ${finding.key} is linked (${VALUE(finding.expected)}) but gone from the platform`
        : `${finding.key}: platform ${VALUE(finding.platform)}, erp-sync would push ${VALUE(finding.expected)}`;
  return `  ${finding.kind.padEnd(16)} ${what}\n  ${''.padEnd(16)} ${finding.heals ? 'heals' : 'BLOCKED'}: ${finding.why}`;
}

export function formatAuditReport(report: AuditReport): string {
  const erp = Object.entries(report.read.erpRows)
    .map(([pipeline, n]) => `ERP ${pipeline} ${n} rows`)
    .join(', ');
  const read = [
    report.read.platformItems ? `platform ${report.read.platformItems} items` : '',
    erp,
    report.pipelines.includes('orders')
      ? `${report.read.platformOrders} platform orders, ${report.read.orderLinks} order links`
      : '',
  ].filter(Boolean);
  const lines = [
    `audit of ${report.pipelines.join(', ')}: read ${read.join(', ')} in ${report.seconds.toFixed(2)} s`,
  ];
  if (!report.complete) lines.push(`could not finish: ${report.error ?? 'unknown error'}`);
  const counts = Object.entries(report.counts)
    .filter(([, n]) => n > 0)
    .map(([kind, n]) => `${kind} ${n}`)
    .join(', ');
  lines.push(
    report.drift === 0
      ? report.complete
        ? 'in step: no drift found'
        : 'no drift found in what was read'
      : `drift: ${report.drift} (${counts})`,
  );
  for (const finding of report.findings) lines.push(formatFinding(finding));
  if (report.truncated)
    lines.push(`  ... ${report.drift - report.findings.length} more (raise --max to list them)`);
  return `${lines.join('\n')}\n`;
}

function describeEnqueued(outcome: HealOutcome): string[] {
  return outcome.enqueued.map(
    (e) =>
      `  ${e.pipeline}: ${e.items} item(s) in ${e.pushJobs.length} push job(s) (${e.pushJobs.join(', ')}), summed up by ${e.job}`,
  );
}

/** Which path the fix took and why, what it enqueued or pushed. */
export function formatAuditFix(fix: AuditFix): string {
  const { outcome } = fix;
  const lines: string[] = [];
  if (outcome.via === 'inline')
    lines.push(outcome.summaries.length ? `fix: pushed inline (${fix.why})` : 'fix: nothing to push');
  else {
    const what = outcome.enqueued.length ? 'enqueued in the daemon' : 'for the daemon';
    lines.push(`fix: ${what} (${fix.why}):`, ...describeEnqueued(outcome));
    for (const note of fix.notes) lines.push(`  ${note}`);
    if (!fix.waited && outcome.enqueued.length)
      lines.push(
        '  the daemon sends them; `erp-sync audit` shows the result, `erp-sync audit --fix --wait` waits for it',
      );
  }
  if (outcome.summaries.length) lines.push(formatSummaryTable(outcome.summaries));
  for (const failure of outcome.failures)
    lines.push(`fix failed: ${failure.pipeline} ${failure.part}: ${failure.reason}`);
  return `${lines.join('\n')}\n`;
}

/** The exit code of an audit: 0 in step, 1 drift found, 2 could not finish (the audit, or its fix). */
export function auditExitCode(report: AuditReport, fix?: AuditFix): number {
  if (!report.complete || (fix?.outcome.failures.length ?? 0) > 0) return 2;
  return report.drift > 0 ? 1 : 0;
}

export async function audit(options: AuditCommandOptions): Promise<number> {
  const asked = options.pipelines?.length ? options.pipelines : [...AUDIT_PIPELINES];
  const unknown = asked.filter((name) => !(AUDIT_PIPELINES as readonly string[]).includes(name));
  if (unknown.length) {
    process.stderr.write(
      `erp-sync: unknown pipeline(s) ${unknown.join(', ')}; audit knows: ${AUDIT_PIPELINES.join(', ')}\n`,
    );
    return 64;
  }
  if (!Number.isInteger(options.max) || options.max < 0) {
    process.stderr.write('erp-sync: --max wants a whole number >= 0\n');
    return 64;
  }
  if ((options.inline || options.wait) && !options.fix) {
    process.stderr.write('erp-sync: --inline and --wait go with --fix\n');
    return 64;
  }
  if (options.inline && options.wait) {
    process.stderr.write('erp-sync: --wait is for the daemon path; --inline already waits\n');
    return 64;
  }
  endQuietlyOnClosedPipe();
  const config = loadConfig({ file: options.configFile, account: options.account });
  const logger = createLogger({ level: config.log.level });
  const tty = Boolean(process.stderr.isTTY) && !options.json;
  let ctx;
  try {
    // Never creates a store, --fix included: its findings and pushes rest on what the store knows,
    // and a mistyped path or schema would look like a store that knows nothing.
    ctx = await createSyncContext(config, logger, {
      client: operatorClientBounds(config.api),
      storeMustExist: true,
    });
  } catch (error) {
    if (error instanceof StoreNotFoundError) throw error; // refused as status refuses it
    process.stderr.write(`erp-sync: audit could not start: ${describeError(error)}\n`);
    return 2;
  }
  let report: AuditReport;
  let fix: AuditFix | undefined;
  try {
    report = await runAudit(ctx, {
      pipelines: asked as AuditPipeline[],
      max: options.max,
      collectFixes: options.fix,
      onProgress: tty
        ? (progress) => process.stderr.write(`\raudit: ${progress.side} ${progress.read} read\x1b[K`)
        : undefined,
    });
    if (tty) process.stderr.write('\r\x1b[K');
    if (options.fix && report.complete && report.fixes)
      fix = await healAuditDrift(ctx, report.fixes, {
        inline: options.inline,
        wait: options.wait,
        tty,
      });
  } finally {
    await closeSyncContext(ctx);
  }
  const { fixes: _fixes, ...shown } = report;
  if (options.json) process.stdout.write(`${JSON.stringify(fix ? { ...shown, fix } : shown, null, 2)}\n`);
  else {
    process.stdout.write(formatAuditReport(report));
    if (fix) process.stdout.write(`\n${formatAuditFix(fix)}`);
    else if (options.fix) process.stdout.write('\nfix: not attempted, the audit did not finish\n');
  }
  return auditExitCode(report, fix);
}

/** `erp-sync audit`. */
export async function auditCommand(
  flags: { pipeline?: string; json: boolean; max: string; fix: boolean; inline: boolean; wait: boolean },
  command: Command,
): Promise<void> {
  const globals = command.optsWithGlobals<GlobalFlags>();
  process.exitCode = await audit({
    configFile: globals.config,
    account: globals.account,
    pipelines: flags.pipeline
      ?.split(',')
      .map((name) => name.trim())
      .filter(Boolean),
    json: flags.json,
    max: Number(flags.max),
    fix: flags.fix,
    inline: flags.inline,
    wait: flags.wait,
  });
}
