import type { Logger } from 'pino';
import type { ApiClient } from '../../api/createApiClient.js';
import type { Config } from '../../config.js';
import type { ErrorCode } from '../../domain/errors.js';
import type { ErpAdapter } from '../../erp/ErpAdapter.js';
import type { Store } from '../../store/index.js';
import type { PipelineName } from '../../domain/pipelineNames.js';

/**
 * Units of platform orders not yet reflected in the ERP, per item key (`itemKeyString`).
 * The stock pipeline subtracts them before the safety buffer (oversell guard, issue 5).
 */
export interface ReservationSource {
  /**
   * `client`: the run's own client view (its requests count for that run); default: the context's.
   * `readStartedAt`: when the ERP read these keys come from began (ISO): an ERP whose stock
   * subtracts imported orders reflects every order imported before it.
   */
  unitsHeld(
    keys: string[],
    client?: ApiClient,
    readStartedAt?: string,
  ): Map<string, number> | Promise<Map<string, number>>;
}

/** What a pipeline reports while it runs; the CLI turns it into a bar or log lines. */
export interface ProgressEvent {
  pipeline: PipelineName;
  read: number;
  sent: number;
  applied: number;
  /** True once the pipeline finished (last event). */
  done?: boolean;
}

/** Requests of one run, counted through the run's client view (every attempt). */
export interface RequestCounter {
  total: number;
  writes: number;
}

/**
 * Everything a pipeline needs, built once per process by createSyncContext and shared by every
 * run of that process (also runs at the same time). Per-run state lives in RunOptions.
 */
export interface SyncContext {
  client: ApiClient;
  erp: ErpAdapter;
  store: Store;
  config: Config;
  logger: Logger;
  reservations?: ReservationSource;
}

export interface RunOptions {
  /** Ignore fingerprints (and not-on-platform marks): send everything. */
  full: boolean;
  /** Send nothing, write nothing, take no lease; the summary shows what would be sent. */
  dryRun: boolean;
  /**
   * Also counts this run's requests here (live, while it runs). The summary's counts come from
   * the run's own counter either way.
   */
  requests?: RequestCounter;
  onProgress?: (event: ProgressEvent) => void;
  /** Aborted on SIGINT/SIGTERM: the run stops sending new requests and finishes cleanly. */
  signal?: AbortSignal;
}

/**
 * Why a run failed, typed for a caller that must decide without parsing text (a queue retries a
 * `retryable` run, drops a `permanent` one, stops everything on `fatal`: a person must act).
 */
export interface RunFailure {
  code: ErrorCode;
  kind: 'retryable' | 'permanent' | 'fatal';
  message: string;
  /** For a 429 (or a 503) whose answer said how long to wait: the platform's Retry-After, in ms. */
  retryAfterMs?: number;
}

/** Counts of one pipeline run, printed by run-once and stored by store.runs.finish. */
/** Item counts of one unit of work outside a run (an import job), by RunSummary field. */
export type ItemCounts = Partial<
  Pick<RunSummary, 'read' | 'unchanged' | 'sent' | 'applied' | 'notFound' | 'rejected' | 'failed'>
>;

export interface RunSummary {
  pipeline: PipelineName;
  /** Records read (ERP rows for stock/prices, platform products for catalog). */
  read: number;
  /** Items equal to their acknowledged fingerprint: not sent. */
  unchanged: number;
  /** Items sent (with dryRun: items that would be sent). */
  sent: number;
  /** Items the platform confirmed. */
  applied: number;
  /** Items the platform reported as not_found, or skipped as known not to be on the platform. */
  notFound: number;
  /** Bad rows and items the platform refused. */
  rejected: number;
  /** Items in batches that failed with a transient error after the client's retries (redone next run). */
  failed: number;
  /** HTTP requests made, every attempt included. */
  requests: number;
  /** Of which writes (PATCH/POST/PUT/DELETE). */
  writeRequests: number;
  seconds: number;
  full: boolean;
  dryRun: boolean;
  /** Pipeline-specific counters (catalog: links, changedOnPlatform, appeared, ...). */
  extra: Record<string, number>;
  /** With dryRun: the first items that would be sent. */
  preview?: unknown[];
  /** Set when the run ended early or partially failed. */
  error?: RunFailure;
}

export type Pipeline = (ctx: SyncContext, options: RunOptions) => Promise<RunSummary>;
