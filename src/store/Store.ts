import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import type { Logger } from '../logger.js';
import { AccountRepository } from './AccountRepository.js';
import { BulkLimitRepository } from './BulkLimitRepository.js';
import { CursorRepository } from './CursorRepository.js';
import { FingerprintRepository } from './FingerprintRepository.js';
import { GenerationRepository } from './GenerationRepository.js';
import { LeaseRepository } from './LeaseRepository.js';
import { migrate } from './migrate.js';
import { MIGRATIONS, type Migration } from './migrations.js';
import { createOrderRepositories, type OrderRepositories } from './createOrderRepositories.js';
import { ProductLinkRepository } from './ProductLinkRepository.js';
import { createProductRepositories, type ProductRepositories } from './productRepositories.js';
import { RejectRepository } from './RejectRepository.js';
import { RunRepository } from './RunRepository.js';
import type { SqlDatabase } from './sql/SqlDatabase.js';
import { SqliteDatabase } from './sql/SqliteDatabase.js';
import { StoreError, StoreNotFoundError } from './StoreError.js';

export interface StoreOptions {
  logger?: Logger;
  /** How long a write waits for another process's lock before failing (ms). */
  busyTimeoutMs?: number;
  /** Clock for leases (tests). */
  now?: () => number;
  /** Replaces the migration list (tests only). */
  migrations?: readonly Migration[];
  /** Refuse to create the file: for commands that only look (status, check, listings). */
  mustExist?: boolean;
}

/**
 * The daemon's state, in SQLite (a file several processes of one host open: WAL mode, busy
 * timeout) or PostgreSQL (processes on several hosts), behind the SQL port `db`; each repository
 * holds its own prepared statements.
 * Each repository is made, and its statements prepared, when it is first used: a command that
 * reads one table (`erp-sync check` reads the account) prepared all 107 statements, about 5 ms
 * of its start (bench/RESULTS.md, "What the commands load at start"). Another feature adds its
 * repositories as further getters of the same kind.
 */
export class Store {
  #account?: AccountRepository;
  #cursors?: CursorRepository;
  #productLinks?: ProductLinkRepository;
  #fingerprints?: FingerprintRepository;
  #runs?: RunRepository;
  #rejects?: RejectRepository;
  #leases?: LeaseRepository;
  #generations?: GenerationRepository;
  #bulkLimits?: BulkLimitRepository;
  #orders?: OrderRepositories;
  #products?: ProductRepositories;
  readonly #now: () => number;

  constructor(
    readonly db: SqlDatabase,
    /** Where the store is, fit to show: the SQLite file, or the PostgreSQL URL (no password) and schema. */
    readonly path: string,
    options: StoreOptions = {},
  ) {
    this.#now = options.now ?? Date.now;
  }

  get account(): AccountRepository {
    return (this.#account ??= new AccountRepository(this.db));
  }

  get cursors(): CursorRepository {
    return (this.#cursors ??= new CursorRepository(this.db));
  }

  get productLinks(): ProductLinkRepository {
    return (this.#productLinks ??= new ProductLinkRepository(this.db));
  }

  get fingerprints(): FingerprintRepository {
    return (this.#fingerprints ??= new FingerprintRepository(this.db));
  }

  get runs(): RunRepository {
    return (this.#runs ??= new RunRepository(this.db));
  }

  get rejects(): RejectRepository {
    return (this.#rejects ??= new RejectRepository(this.db));
  }

  get leases(): LeaseRepository {
    return (this.#leases ??= new LeaseRepository(this.db, this.#now));
  }

  get generations(): GenerationRepository {
    return (this.#generations ??= new GenerationRepository(this.db));
  }

  /** Bulk request sizes the platform's refusals taught (issue 21). */
  get bulkLimits(): BulkLimitRepository {
    return (this.#bulkLimits ??= new BulkLimitRepository(this.db));
  }

  /** Order links, seen/parked orders, applied ERP events, ERP-origin orders (issue 5). */
  get orders(): OrderRepositories {
    return (this.#orders ??= createOrderRepositories(this.db));
  }

  /** Product creates and field fingerprints of the products pipeline (issue 14). */
  get products(): ProductRepositories {
    return (this.#products ??= createProductRepositories(this.db));
  }

  /** Runs fn in one transaction (nested calls become savepoints); returns its result. */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn);
  }

  close(): void {
    this.db.close();
  }
}

/** Opens (creating if needed) the store at `path`, or an in-memory one for ':memory:', migrated. */
export function openStore(path: string, options: StoreOptions = {}): Store {
  let native: BetterSqlite3.Database;
  if (options.mustExist && path !== ':memory:' && !existsSync(path)) {
    throw new StoreNotFoundError(
      `no store at ${path}: nothing has run with this store.path yet, or the path is wrong`,
    );
  }
  try {
    if (path !== ':memory:' && !options.mustExist) mkdirSync(dirname(path), { recursive: true });
    native = new BetterSqlite3(path, {
      timeout: options.busyTimeoutMs ?? 10_000,
      fileMustExist: options.mustExist ?? false,
    });
  } catch (error) {
    throw new StoreError(`cannot open the store at ${path}: ${(error as Error).message}`, { cause: error });
  }
  const db = new SqliteDatabase(native);
  try {
    if (path !== ':memory:') native.pragma('journal_mode = WAL');
    native.pragma('synchronous = NORMAL');
    native.pragma('foreign_keys = ON');
    const applied = migrate(db, options.migrations ?? MIGRATIONS);
    if (applied.length) options.logger?.info({ path, applied }, 'store migrated');
    return new Store(db, path, options);
  } catch (error) {
    db.close();
    if (error instanceof StoreError) throw error;
    throw new StoreError(`cannot prepare the store at ${path}: ${(error as Error).message}`, {
      cause: error,
    });
  }
}
