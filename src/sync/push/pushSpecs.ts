import type { ItemKey } from '../../domain/records.js';
import type { FingerprintPipeline } from '../../store/index.js';
import { pricesPushSpec } from './prices.js';
import type { PushWire } from './pushKind.js';
import type { PushSpec } from './diffPushItems.js';
import { stockPushSpec } from './stock.js';
import type { SyncContext } from '../frame/types.js';

const SPECS: Readonly<Record<FingerprintPipeline, (ctx: SyncContext) => PushSpec<ItemKey, PushWire>>> = {
  stock: stockPushSpec,
  prices: pricesPushSpec,
};

/** A push pipeline's spec for one run (its reads with the run's context), by name. */
export function pushSpecOf(pipeline: FingerprintPipeline, ctx: SyncContext): PushSpec<ItemKey, PushWire> {
  return SPECS[pipeline](ctx);
}
