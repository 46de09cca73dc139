import {
  ApiValidationError,
  ClientValidationError,
  ConflictError,
  HttpError,
  NotFoundError,
  PayloadTooLargeError,
} from '../../api/errors.js';
import type { RunSummary } from '../frame/types.js';

export function countExtra(summary: RunSummary, key: string, n = 1): void {
  summary.extra[key] = (summary.extra[key] ?? 0) + n;
}

/** The headline of an order pipeline's dry-run preview (run-once prints it above the items). */
export function orderPreviewTitle(summary: RunSummary): string | undefined {
  const n = (key: string) => summary.extra[key] ?? 0;
  switch (summary.pipeline) {
    case 'orders':
      return `would import ${n('wouldImport')} order(s) into the ERP and deliver ${n('wouldUpdate')} change(s); ${n('wouldSkip')} new order(s) in a status not imported`;
    case 'feedback':
      return `would apply ${summary.sent} event(s) on the platform`;
    case 'erp-orders':
      return `would create ${summary.sent} order(s) on the platform`;
    default:
      return undefined;
  }
}

/**
 * The platform answered and refused one order's request for good (422 or its client-side twin,
 * 404, 409, 413, another 4xx): retrying cannot change the answer, so it is a reject of that order
 * or event and the others go on.
 */
export function isRefusal(error: unknown): error is Error {
  return (
    error instanceof ApiValidationError ||
    error instanceof ClientValidationError ||
    error instanceof NotFoundError ||
    error instanceof ConflictError ||
    error instanceof PayloadTooLargeError ||
    error instanceof HttpError
  );
}
