import type { Logger } from 'pino';
import type { ApiClient } from '../api/createApiClient.js';
import type { Config } from '../config.js';
import type { ErpAdapter } from '../erp/ErpAdapter.js';
import type { Store } from '../store/index.js';

/**
 * Units of platform orders not yet reflected in the ERP, per item key (`itemKeyString`).
 * The stock pipeline subtracts them before the safety buffer (oversell guard, issue 5).
 */
export interface ReservationSource {
  unitsHeld(keys: string[]): Map<string, number> | Promise<Map<string, number>>;
}

/** What a pipeline reports while it runs; the CLI turns it into a bar or log lines. */
export interface ProgressEvent {
  pipeline: string;
  read: number;
  sent: number;
  applied: number;
  /** True once the pipeline finished (last event). */
  done?: boolean;
}

/** Requests made through ctx.client, counted by the client's onResponse hook (every attempt). */
export interface RequestCounter {
  total: number;
  writes: number;
}

/** Everything a pipeline needs, built once per process by createSyncContext. */
export interface SyncContext {
  client: ApiClient;
  erp: ErpAdapter;
  store: Store;
  config: Config;
  logger: Logger;
  requests: RequestCounter;
  reservations?: ReservationSource;
  onProgress?: (event: ProgressEvent) => void;
  /** Aborted on SIGINT/SIGTERM: pipelines stop sending new requests and finish cleanly. */
  signal?: AbortSignal;
}

export interface RunOptions {
  /** Ignore fingerprints (and not-on-platform marks): send everything. */
  full: boolean;
  /** Send nothing, write nothing; the summary shows what would be sent. */
  dryRun: boolean;
}

/** Counts of one pipeline run, printed by run-once and stored by store.runs.finish. */
export interface RunSummary {
  pipeline: string;
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
  error?: string;
  fatal?: boolean;
}

export type Pipeline = (ctx: SyncContext, options: RunOptions) => Promise<RunSummary>;
