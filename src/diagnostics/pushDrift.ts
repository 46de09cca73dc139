import { describeSource } from '../domain/records.js';
import type { Fingerprint, StoredReject } from '../store/index.js';
import { isInFlightFingerprint, isRefusedFingerprint, refusedFingerprint } from '../sync/push/fingerprint.js';
import type { NextRead } from './nextRead.js';

/** Why an item's platform value is or is not what erp-sync would push, and whether it heals alone. */
export interface DriftReason {
  /** A run is due that sends the ERP's value (true), or a person must act (false). */
  heals: boolean;
  /** erp-sync would send this item if asked now (a `--fix` push). */
  pushable: boolean;
  why: string;
}

function where(reject: StoredReject): string {
  const text = describeSource(reject.source ?? undefined);
  return text ? ` (${text})` : '';
}

/** A reject as one line: reason and where the ERP row is. */
export function describeReject(reject: StoredReject): string {
  return `${reject.reason}${where(reject)}`;
}

/**
 * The reason an item whose platform value differs from the value erp-sync would push (`hash`)
 * is in that state, from what the store knows of it: its fingerprint and its open reject. With
 * `next` (an adapter whose reads are incremental), a run heals it only when its read holds the
 * item; otherwise only a full read does.
 */
export function driftReason(
  pipeline: 'stock' | 'prices',
  hash: string,
  fingerprint: Fingerprint | undefined,
  reject: StoredReject | undefined,
  next?: NextRead,
): DriftReason {
  const reason = storeReason(pipeline, hash, fingerprint, reject);
  if (!reason.heals || !next || next.holds) return reason;
  const every = next.fullReadEveryMinutes;
  const now = `audit --fix or sync ${pipeline} --full sends it now`;
  return {
    heals: every > 0,
    pushable: true,
    why:
      `only a full read heals it: the ERP's incremental ${pipeline} read does not see this change ` +
      `(a deleted or cancelled row, a date that passed, a change on the platform); ` +
      (every > 0
        ? `the adapter's full read, at least every ${every} minutes, sends it; ${now}`
        : `the adapter makes none by itself (full reads every 0 minutes); ${now}`),
  };
}

function storeReason(
  pipeline: 'stock' | 'prices',
  hash: string,
  fingerprint: Fingerprint | undefined,
  reject: StoredReject | undefined,
): DriftReason {
  if (fingerprint?.missing)
    return {
      heals: false,
      pushable: true,
      why: 'marked not on the platform: the next catalog run clears the mark if the platform has it now, else create it there',
    };
  if (fingerprint && isInFlightFingerprint(fingerprint.hash))
    return {
      heals: true,
      pushable: true,
      why: `a push of ${fingerprint.hash.slice(1)} went out but its answer was never recorded (lost answer or interrupted run): the next ${pipeline} run sends it again`,
    };
  if (fingerprint && fingerprint.hash === refusedFingerprint(hash))
    return {
      heals: false,
      pushable: false,
      why: `the platform refused this value${reject ? `: ${describeReject(reject)}` : ''}; change it in the ERP`,
    };
  if (fingerprint?.hash === hash)
    return {
      heals: true,
      pushable: true,
      why: `changed on the platform after the push acknowledged at ${fingerprint.ackedAt ?? '?'}: the next catalog run notices it and the next ${pipeline} run pushes the ERP value again`,
    };
  const acked =
    fingerprint && !isRefusedFingerprint(fingerprint.hash) && fingerprint.hash !== ''
      ? ` (${fingerprint.hash})`
      : '';
  return {
    heals: true,
    pushable: true,
    why: fingerprint
      ? `a ${pipeline} run is due: the ERP value differs from the last value the platform acknowledged${acked}`
      : `a ${pipeline} run is due: the platform never acknowledged a value from erp-sync for it`,
  };
}
