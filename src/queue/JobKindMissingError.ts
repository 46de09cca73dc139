import { ErpSyncError } from '../domain/errors.js';

/** A job name with no kind in the registry to process it, or one found on a queue no kind of that name is on. */
export class JobKindMissingError extends ErpSyncError {
  constructor(name: string, queue: string, why: string) {
    super('job_unhandled', `no handler for job "${name}" on the ${queue} queue: ${why}`, {
      job: name,
      queue,
    });
  }
}
