import type { FingerprintPipeline } from '../../store/index.js';
import { pricesPush } from './pricesPush.js';
import type { PushKind } from './pushKind.js';
import { stockPush } from './stockPush.js';

/** Every push pipeline by name, in the order run-once, the audit and explain take them. */
export const PUSH_KINDS: Readonly<Record<FingerprintPipeline, PushKind>> = {
  stock: stockPush,
  prices: pricesPush,
};

export const PUSH_PIPELINES = Object.keys(PUSH_KINDS) as FingerprintPipeline[];

export function isPushPipeline(name: string): name is FingerprintPipeline {
  return Object.hasOwn(PUSH_KINDS, name);
}

/** One value per push pipeline. */
export function perPushPipeline<T>(of: (pipeline: FingerprintPipeline) => T): Record<FingerprintPipeline, T> {
  return Object.fromEntries(PUSH_PIPELINES.map((pipeline) => [pipeline, of(pipeline)])) as Record<
    FingerprintPipeline,
    T
  >;
}
