import type { SqlDatabase, SqlStatement } from './sql/SqlDatabase.js';

/** The company identity a store is bound to, as read from GET /account. */
export interface AccountIdentity {
  /** The API base URL, normalised (never with credentials: the configuration refuses them). */
  baseUrl: string;
  /** The company's identity from GET /account: its id, else its tax id, else its name. */
  companyId: string;
  companyName: string | null;
  /** The company's tax id (CUI), when the account says it; null in stores bound before it was kept. */
  taxId: string | null;
}

/** The platform account a store belongs to (invariant 12), recorded at its first sync. */
export interface StoreAccount extends AccountIdentity {
  boundAt: string;
  /** The base URL the same company answered at before `baseUrl` (a proxy, https, a new host). */
  previousBaseUrl: string | null;
  movedAt: string | null;
}

interface AccountRow {
  base_url: string;
  company_id: string;
  company_name: string | null;
  company_tax_id: string | null;
  bound_at: string;
  previous_base_url: string | null;
  moved_at: string | null;
}

export class AccountRepository {
  readonly #get: SqlStatement<[], AccountRow>;
  readonly #bind: SqlStatement<[string, string, string | null, string | null, string]>;
  readonly #move: SqlStatement<[string, string, string]>;
  readonly #completeTaxId: SqlStatement<[string]>;

  constructor(db: SqlDatabase) {
    this.#get = db.prepare(
      `SELECT base_url, company_id, company_name, company_tax_id, bound_at, previous_base_url, moved_at
       FROM store_account WHERE id = 1`,
    );
    this.#bind = db.prepare(
      `INSERT INTO store_account (id, base_url, company_id, company_name, company_tax_id, bound_at)
       VALUES (1, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO NOTHING`,
    );
    this.#move = db.prepare(
      `UPDATE store_account SET previous_base_url = base_url, base_url = ?, moved_at = ?
       WHERE id = 1 AND base_url <> ?`,
    );
    this.#completeTaxId = db.prepare(
      'UPDATE store_account SET company_tax_id = ? WHERE id = 1 AND company_tax_id IS NULL',
    );
  }

  get(): StoreAccount | undefined {
    const row = this.#get.get();
    return row
      ? {
          baseUrl: row.base_url,
          companyId: row.company_id,
          companyName: row.company_name,
          taxId: row.company_tax_id,
          boundAt: row.bound_at,
          previousBaseUrl: row.previous_base_url,
          movedAt: row.moved_at,
        }
      : undefined;
  }

  /**
   * Binds the store to an account unless it already is (two first runs at once: the first wins).
   * Returns the binding now in force, which the caller compares with its own.
   */
  bind(account: AccountIdentity): StoreAccount {
    this.#bind.run(
      account.baseUrl,
      account.companyId,
      account.companyName,
      account.taxId,
      new Date().toISOString(),
    );
    return this.get()!;
  }

  /** The bound company now answers at `baseUrl`: recorded, the address it had kept as the previous one. */
  moveTo(baseUrl: string): StoreAccount {
    this.#move.run(baseUrl, new Date().toISOString(), baseUrl);
    return this.get()!;
  }

  /** A store bound before tax ids were kept learns its company's tax id (compared from then on). */
  completeTaxId(taxId: string): void {
    this.#completeTaxId.run(taxId);
  }
}
