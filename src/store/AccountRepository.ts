import type { Database, Statement } from 'better-sqlite3';

/** The platform account a store belongs to (invariant 12), recorded at its first sync. */
export interface StoreAccount {
  /** The API base URL, normalised (never with credentials: the configuration refuses them). */
  baseUrl: string;
  /** The company's identity from GET /account: its id, else its tax id, else its name. */
  companyId: string;
  companyName: string | null;
  boundAt: string;
}

interface AccountRow {
  base_url: string;
  company_id: string;
  company_name: string | null;
  bound_at: string;
}

export class AccountRepository {
  readonly #get: Statement<[], AccountRow>;
  readonly #bind: Statement<[string, string, string | null, string]>;

  constructor(db: Database) {
    this.#get = db.prepare(
      'SELECT base_url, company_id, company_name, bound_at FROM store_account WHERE id = 1',
    );
    this.#bind = db.prepare(
      `INSERT INTO store_account (id, base_url, company_id, company_name, bound_at) VALUES (1, ?, ?, ?, ?)
       ON CONFLICT (id) DO NOTHING`,
    );
  }

  get(): StoreAccount | undefined {
    const row = this.#get.get();
    return row
      ? {
          baseUrl: row.base_url,
          companyId: row.company_id,
          companyName: row.company_name,
          boundAt: row.bound_at,
        }
      : undefined;
  }

  /**
   * Binds the store to an account unless it already is (two first runs at once: the first wins).
   * Returns the binding now in force, which the caller compares with its own.
   */
  bind(account: Omit<StoreAccount, 'boundAt'>): StoreAccount {
    this.#bind.run(account.baseUrl, account.companyId, account.companyName, new Date().toISOString());
    return this.get()!;
  }
}
