import { ErpSyncError, type ErrorDetails } from '../domain/errors.js';

/** The ERP will not take this order as it is (an unknown SKU, a refused customer): park it. */
export class OrderRefusedError extends ErpSyncError {
  constructor(message: string, details: ErrorDetails = {}) {
    super('erp_rejected', message, details);
  }
}
