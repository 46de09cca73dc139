export { openStore, Store, type StoreOptions } from './Store.js';
export { StoreError } from './StoreError.js';
export { MIGRATIONS, type Migration } from './migrations.js';
export type { ProductLink } from './ProductLinkRepository.js';
export type { Fingerprint, FingerprintEntry, FingerprintPipeline } from './FingerprintRepository.js';
export type { SyncRun, RunStatus } from './RunRepository.js';
export type { StoredReject, RejectListOptions } from './RejectRepository.js';
export { processIdentity, processIsGone } from './processIdentity.js';
export type { StoreAccount } from './AccountRepository.js';
