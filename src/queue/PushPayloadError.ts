import { ErpSyncError } from '../domain/errors.js';

/** A push job whose data holds no batch this version can read: the job fails for good, naming why. */
export class PushPayloadError extends ErpSyncError {
  constructor(why: string) {
    super('job_payload_invalid', `unreadable push job: ${why}`);
  }
}
