import type { ApiClient } from '../../api/createApiClient.js';
import type { BulkResult } from '../../api/envelope.js';
import type { BulkPriceItem, BulkStockItem } from '../../api/inputs.js';
import type { ItemKey } from '../../domain/records.js';
import type { FingerprintPipeline } from '../../store/index.js';
import type { PlatformValues } from './fingerprint.js';

/** The request item of a push pipeline. */
export type PushWire = BulkStockItem | BulkPriceItem;

/** Units held back from an item's ERP value: by platform orders not in the ERP yet, and the safety buffer. */
export interface HeldBack {
  held: number;
  buffer: number;
}

export const NOTHING_HELD: HeldBack = { held: 0, buffer: 0 };

/** The value pushed for one record: the request item and its fingerprint. */
export interface PushValue<W = PushWire> {
  hash: string;
  wire: W;
}

/**
 * What differs between the push pipelines (stock, prices), with no run context: the push stages,
 * the catalog, the audit and explain ask it instead of branching on the pipeline's name. How a
 * pipeline reads the ERP within a run is its PushSpec (`stockPushSpec(ctx)`), which adds to this.
 */
export interface PushKind<R extends ItemKey = ItemKey, W = PushWire> {
  pipeline: FingerprintPipeline;
  /** The oversell guard and the safety buffer hold units back from its value (stock). */
  holdsBack: boolean;
  /** Why a record cannot be sent (spec limits), or null. */
  validate(record: R): string | null;
  /** What is pushed for a valid record (`held` counts only where `holdsBack`). */
  value(record: R, held: HeldBack): PushValue<W>;
  /** The bulk request that sends the values. */
  send(client: ApiClient, wires: W[]): Promise<BulkResult>;
  /** The comparison behind `inStep`: ask `inStep`, the one predicate every caller uses. */
  matches(hash: string, platform: PlatformValues): boolean;
  /** How the values are shown (audit findings, explain). */
  show: {
    /** The ERP record's value (stock: the quantity; prices: the fields). */
    erp(record: R): unknown;
    /** What would be pushed (stock: the quantity; prices: the fingerprint, `p=..|s=..`). */
    push(value: PushValue<W>): unknown;
    /** The platform's value (null: none). */
    platform(platform: PlatformValues): unknown;
    /** Why a variable product's parent has no row of its own. */
    variableParent: string;
  };
}
