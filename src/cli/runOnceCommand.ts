import type { Command } from 'commander';
import { loadConfig } from '../config.js';
import { createLogger } from '../createLogger.js';
import { closeSyncContext, createSyncContext } from '../sync/context.js';
import { orderPreviewTitle } from '../sync/orders/ordersPipelineRun.js';
import { isPipelineName, PIPELINE_ORDER } from '../domain/pipelineNames.js';
import { describeFailure } from '../sync/frame/classifyFailure.js';
import { runPipeline } from '../sync/runPipeline.js';
import { formatSummaryTable } from '../sync/frame/summary.js';
import { createRunProgressRecorder } from '../sync/frame/runProgress.js';
import type { RunFailure, RunSummary } from '../sync/frame/types.js';
import { inSpan } from '../tracing/activeTracing.js';
import { startTracing } from '../tracing/startTracing.js';
import { refuseOtherAccount } from './accountGuard.js';
import { EXIT_FAILED, EXIT_FATAL, EXIT_OK, EXIT_USAGE } from './exitCodes.js';
import { createProgressReporter } from './progress.js';
import { endQuietlyOnClosedPipe } from './endQuietlyOnClosedPipe.js';
import type { GlobalFlags } from './globalFlags.js';

export interface RunOnceOptions {
  configFile?: string;
  /** `--account`: the account of a configuration with several. */
  account?: string | undefined;
  only?: string[];
  full: boolean;
  dryRun: boolean;
  json: boolean;
}

/** Runs the pipelines inline, one after the other; a fatal error stops the rest. Returns the exit code. */
export async function runOnce(options: RunOnceOptions): Promise<number> {
  const asked = options.only?.length ? options.only : PIPELINE_ORDER;
  const unknown = asked.filter((name) => !isPipelineName(name));
  if (unknown.length) {
    process.stderr.write(
      `erp-sync: unknown pipeline(s) ${unknown.join(', ')}; known: ${PIPELINE_ORDER.join(', ')}\n`,
    );
    return EXIT_USAGE;
  }
  const names = asked.filter(isPipelineName);
  endQuietlyOnClosedPipe();
  const config = loadConfig({ file: options.configFile, account: options.account });
  const tty = Boolean(process.stderr.isTTY) && !options.json;
  const logger = createLogger({ level: config.log.level, pretty: tty });
  const progress = await createProgressReporter({ tty, logger });
  const abort = new AbortController();
  const onSignal = (): void => abort.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  const stopTracing = await startTracing(config, logger);
  const ctx = await createSyncContext(config, logger);
  // `status` shows a running run's counts so far.
  const recordProgress = createRunProgressRecorder(ctx.store);
  const summaries: RunSummary[] = [];
  try {
    const refused = await refuseOtherAccount(ctx, { dryRun: options.dryRun });
    if (refused !== undefined) return refused;
    for (const name of names) {
      const run = { 'erp_sync.pipeline': name, 'erp_sync.trigger': 'run-once' };
      const summary = await inSpan(`run ${name}`, run, () =>
        runPipeline(name, ctx, {
          full: options.full,
          dryRun: options.dryRun,
          onProgress: (event) => {
            progress.onProgress(event);
            recordProgress(event);
          },
          signal: abort.signal,
        }),
      );
      summaries.push(summary);
      if (summary.error?.kind === 'fatal' || abort.signal.aborted) break;
      if (unreachable(summary)) {
        // Every further pipeline would spend its retries on the same dead address.
        const rest = names.slice(names.indexOf(name) + 1);
        if (rest.length) {
          process.stderr.write(
            `erp-sync: the platform at ${config.api.baseUrl} cannot be reached; not run: ${rest.join(', ')}\n`,
          );
        }
        break;
      }
    }
  } finally {
    progress.stop();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await closeSyncContext(ctx);
    await stopTracing().catch(() => undefined);
  }

  if (options.json) process.stdout.write(`${JSON.stringify({ summaries }, null, 2)}\n`);
  else process.stdout.write(`${formatSummaryTable(summaries)}\n${formatPreviews(summaries)}`);
  // One line per pipeline that left work undone, on stderr whatever stdout carries (invariant 14).
  for (const { pipeline, error } of summaries) {
    if (error?.kind === 'fatal')
      process.stderr.write(`erp-sync: ${pipeline} stopped: ${describeFailure(error)}\n${hintFor(error)}`);
    else if (error) process.stderr.write(`erp-sync: ${pipeline} failed: ${describeFailure(error)}\n`);
  }
  if (summaries.some((summary) => summary.error?.kind === 'fatal')) return EXIT_FATAL;
  return summaries.some((summary) => summary.error) ? EXIT_FAILED : EXIT_OK;
}

function formatPreviews(summaries: RunSummary[]): string {
  let out = '';
  for (const summary of summaries) {
    if (!summary.dryRun || !summary.preview?.length) continue;
    const title =
      orderPreviewTitle(summary) ??
      `would send ${summary.sent} item(s) in ${summary.extra.batches ?? 0} request(s)`;
    out += `\n${summary.pipeline}: ${title}; the first ${summary.preview.length}:\n`;
    out += summary.preview.map((item) => `  ${JSON.stringify(item)}`).join('\n') + '\n';
  }
  return out;
}

/** Nothing went through and the API could not be reached at all (after the client's retries). */
function unreachable(summary: RunSummary): boolean {
  return summary.applied === 0 && summary.error?.code === 'api_network';
}

function hintFor(error: RunFailure): string {
  if (error.code === 'api_auth') {
    return 'erp-sync: the platform refused the API key; check api.apiKey (or CMS_API_KEY) and the account, then run again.\n';
  }
  return '';
}

/** `erp-sync run-once`. */
export async function runOnceCommand(
  flags: { only?: string[]; full: boolean; dryRun: boolean; json: boolean },
  command: Command,
): Promise<void> {
  const globals = command.optsWithGlobals<GlobalFlags>();
  process.exitCode = await runOnce({
    configFile: globals.config,
    account: globals.account,
    only: flags.only,
    full: flags.full,
    dryRun: flags.dryRun,
    json: flags.json,
  });
}
