import type { Store } from '../../store/index.js';

/**
 * Where an import records its outcome in the store: each in its own transaction by default, or
 * gathered by ImportWrites and written for many orders in one.
 */
export type RecordOutcome = (write: () => void) => void;

/** Each outcome in a transaction of its own. */
export const recordAtOnce =
  (store: Pick<Store, 'transaction'>): RecordOutcome =>
  (write) =>
    store.transaction(write);

/**
 * The outcomes of many imports, written in one transaction by flush(): one commit for a batch of
 * orders instead of one each. Every outcome is still written only after the ERP answered
 * (acknowledge before forgetting); a crash before the flush leaves the orders queued, and their
 * next import finds them in the ERP (the adapters' import is idempotent on the platform order id).
 */
export class ImportWrites {
  #pending: (() => void)[] = [];

  constructor(private readonly store: Pick<Store, 'transaction'>) {}

  readonly record: RecordOutcome = (write) => {
    this.#pending.push(write);
  };

  get size(): number {
    return this.#pending.length;
  }

  flush(): void {
    if (this.#pending.length === 0) return;
    const writes = this.#pending;
    this.#pending = [];
    this.store.transaction(() => {
      for (const write of writes) write();
    });
  }
}
