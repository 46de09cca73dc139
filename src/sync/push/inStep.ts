import type { FingerprintPipeline } from '../../store/index.js';
import type { PlatformValues } from './fingerprint.js';
import { PUSH_KINDS } from './pushKinds.js';

/**
 * Whether an item is in step with the platform: the platform holds the value a fingerprint
 * describes (`hash`: an acknowledged one, or the one a run would push now). The one predicate the
 * catalog (a platform-side change), the audit (drift) and explain (the verdict) use.
 */
export function inStep(pipeline: FingerprintPipeline, hash: string, platform: PlatformValues): boolean {
  return PUSH_KINDS[pipeline].matches(hash, platform);
}
