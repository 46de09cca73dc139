import { ErpSyncError } from '../domain/errors.js';

/** A push flow held its pipeline past its limit (flowLimit.ts): failed, its items sent again by the next scan. */
export class FlowStuckError extends ErpSyncError {
  constructor(pipeline: string, ageMs: number, limitMs: number) {
    super(
      'flow_stuck',
      `the ${pipeline} flow waited ${Math.round(ageMs / 1000)} s for its batches, past its limit of ${Math.round(limitMs / 1000)} s: failed, the lease released, its items are sent again by the next scan`,
      { pipeline, ageSeconds: Math.round(ageMs / 1000), limitSeconds: Math.round(limitMs / 1000) },
    );
  }
}
