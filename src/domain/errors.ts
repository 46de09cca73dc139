/**
 * The one catalogue of stable error codes. Each code says whether the failure may heal by
 * itself (retryable) and whether it must stop the pipelines until a person acts (fatal).
 * Modules subclass ErpSyncError with one of these codes; nothing else invents codes.
 */
export const ERROR_CATALOGUE = {
  // configuration and programming
  config_invalid: { retryable: false, fatal: true },
  /** `--account` names no account of the configuration, or several exist and none is named. */
  account_unknown: { retryable: false, fatal: true },
  internal: { retryable: false, fatal: false },
  // API v2 (mapped from HTTP results in src/api/ only)
  api_auth: { retryable: false, fatal: true },
  api_not_found: { retryable: false, fatal: false },
  api_validation: { retryable: false, fatal: false },
  api_conflict: { retryable: false, fatal: false },
  api_payload_too_large: { retryable: false, fatal: false },
  api_rate_limited: { retryable: true, fatal: false },
  api_server: { retryable: true, fatal: false },
  api_network: { retryable: true, fatal: false },
  api_timeout: { retryable: true, fatal: false },
  api_outcome_unknown: { retryable: false, fatal: false },
  api_schema: { retryable: false, fatal: false },
  api_http: { retryable: false, fatal: false },
  // input checked before sending
  client_validation: { retryable: false, fatal: false },
  // ERP side
  erp_unavailable: { retryable: true, fatal: false },
  erp_auth: { retryable: false, fatal: true },
  erp_rejected: { retryable: false, fatal: false },
  erp_parse: { retryable: false, fatal: false },
  /** A query or statement of the integrator's that the ERP database refuses for good (SQL adapter). */
  erp_query: { retryable: false, fatal: false },
  /**
   * The ERP refuses erp-sync's user a privilege the run needs (a table, a sequence, a Tryton model):
   * the same for every item, so the run stops; a person grants it (`erp-sync check` names it).
   */
  erp_permission: { retryable: false, fatal: false },
  // Redis (the daemon's queues)
  redis_unavailable: { retryable: true, fatal: false },
  /** Redis answered a command of a short CLI read (status, check) with an error. */
  redis_reply: { retryable: false, fatal: false },
  /** A job name the daemon has no handler for (a registry gap: refuses to start; a job of an unknown name fails). */
  job_unhandled: { retryable: false, fatal: false },
  /** A job's data this version cannot read (a push job's batch missing or malformed): failed, never retried. */
  job_payload_invalid: { retryable: false, fatal: false },
  /** A push flow held its pipeline past its limit (a batch that never ends): failed, its items resent. */
  flow_stuck: { retryable: false, fatal: false },
  // local store
  store_failure: { retryable: false, fatal: true },
  store_account_mismatch: { retryable: false, fatal: true },
  /** `store migrate` will not copy: a non-empty target without --replace, or the stores' tables differ. */
  store_copy_refused: { retryable: false, fatal: false },
  /** `store migrate` read the copy back and it differs from the source (row count or checksum of a table). */
  store_copy_mismatch: { retryable: false, fatal: false },
} as const satisfies Record<string, { retryable: boolean; fatal: boolean }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

export interface ErrorDetails {
  [key: string]: unknown;
}

export class ErpSyncError extends Error {
  readonly code: ErrorCode;
  readonly retryable: boolean;
  readonly fatal: boolean;
  readonly details: ErrorDetails;

  constructor(code: ErrorCode, message: string, details: ErrorDetails = {}, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
    this.retryable = ERROR_CATALOGUE[code].retryable;
    this.fatal = ERROR_CATALOGUE[code].fatal;
    this.details = details;
  }

  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      code: this.code,
      message: this.message,
      retryable: this.retryable,
      fatal: this.fatal,
      ...this.details,
    };
  }
}

export function isErpSyncError(error: unknown): error is ErpSyncError {
  return error instanceof ErpSyncError;
}

/** A message for logs and reports from anything thrown, without stack noise. */
export function describeError(error: unknown): string {
  if (error instanceof ErpSyncError) return `${error.code}: ${error.message}`;
  if (error instanceof Error) return error.message;
  return String(error);
}
