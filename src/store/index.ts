export { openStore, Store, type StoreOptions } from './Store.js';
export { StoreBusyError, StoreError, StoreNotFoundError } from './StoreError.js';
export { MIGRATIONS, type Migration } from './migrations.js';
export type { ProductLink } from './ProductLinkRepository.js';
export type {
  Fingerprint,
  FingerprintEntry,
  FingerprintPipeline,
  InFlightEntry,
} from './FingerprintRepository.js';
export type { SyncRun, RunStatus } from './RunRepository.js';
export type { StoredReject, RejectListOptions } from './RejectRepository.js';
export { ScratchTable } from './ScratchTable.js';
export { processIdentity, processIsGone } from './processIdentity.js';
export type { AccountIdentity, StoreAccount } from './AccountRepository.js';
export type { BulkLimit } from './BulkLimitRepository.js';
export { openStoreFromConfig, describeStoreConfig } from './openStoreFromConfig.js';
export { dropPostgresStore, openPostgresStore } from './openPostgresStore.js';
export { POSTGRES_MIGRATIONS } from './postgresMigrations.js';
export type { SqlDatabase, SqlStatement } from './sql/SqlDatabase.js';
export { deleteStore } from './deleteStore.js';
