import type { SqlDatabase, SqlStatement } from './sql/SqlDatabase.js';

import type { OrderEvent } from '../domain/orders.js';
import type { RecordSource } from '../domain/records.js';

/** waiting: names an ERP reference no order has yet; tried again each run until one has it. */
export type EventOutcome = 'applied' | 'rejected' | 'waiting';

export interface AppliedEvent {
  eventId: string;
  platformOrderId: number | null;
  kind: string;
  outcome: EventOutcome;
  detail: string | null;
  appliedAt: string;
}

interface EventRow {
  event_id: string;
  platform_order_id: number | null;
  kind: string;
  outcome: string;
  detail: string | null;
  applied_at: string;
}

/** ERP events already handled: a replay of the same event changes nothing on the platform. */
export class AppliedEventRepository {
  readonly #record: SqlStatement<[string, number | null, string, string, string | null, string]>;
  readonly #get: SqlStatement<[string], EventRow>;
  readonly #count: SqlStatement<[], { outcome: string; n: number }>;
  readonly #wait: SqlStatement<[string, string, string, string]>;
  readonly #waiting: SqlStatement<[], { detail: string }>;

  constructor(private readonly db: SqlDatabase) {
    this.#record = db.prepare(
      `INSERT INTO applied_events (event_id, platform_order_id, kind, outcome, detail, applied_at)
       VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (event_id) DO UPDATE SET platform_order_id = excluded.platform_order_id,
         outcome = excluded.outcome, detail = excluded.detail, applied_at = excluded.applied_at
       WHERE applied_events.outcome = 'waiting'`,
    );
    this.#wait = db.prepare(
      `INSERT INTO applied_events (event_id, platform_order_id, kind, outcome, detail, applied_at)
       VALUES (?, NULL, ?, 'waiting', ?, ?) ON CONFLICT (event_id) DO NOTHING`,
    );
    this.#waiting = db.prepare(
      "SELECT detail FROM applied_events WHERE outcome = 'waiting' ORDER BY applied_at, rowid",
    );
    this.#get = db.prepare('SELECT * FROM applied_events WHERE event_id = ?');
    this.#count = db.prepare('SELECT outcome, count(*) AS n FROM applied_events GROUP BY outcome');
  }

  /** Keeps an event whose order is not known yet, to be tried again (see `waiting`). */
  wait(event: OrderEvent, source: RecordSource): void {
    this.#wait.run(event.eventId, event.kind, JSON.stringify({ event, source }), new Date().toISOString());
  }

  /** Waiting events, oldest first. */
  waiting(): { event: OrderEvent; source: RecordSource }[] {
    return this.#waiting
      .all()
      .map((row) => JSON.parse(row.detail) as { event: OrderEvent; source: RecordSource });
  }

  /** Records the outcome of an event once (a waiting one gets its final outcome). */
  record(event: Omit<AppliedEvent, 'appliedAt'>): void {
    this.#record.run(
      event.eventId,
      event.platformOrderId,
      event.kind,
      event.outcome,
      event.detail,
      new Date().toISOString(),
    );
  }

  get(eventId: string): AppliedEvent | undefined {
    const row = this.#get.get(eventId);
    return row ? toEvent(row) : undefined;
  }

  /** The events handled for one platform order, oldest first (`erp-sync explain order`). */
  forOrder(platformOrderId: number): AppliedEvent[] {
    return this.db
      .prepare<[number], EventRow>(
        'SELECT * FROM applied_events WHERE platform_order_id = ? ORDER BY applied_at, rowid',
      )
      .all(platformOrderId)
      .map(toEvent);
  }

  counts(): Record<string, number> {
    return Object.fromEntries(this.#count.all().map((r) => [r.outcome, r.n]));
  }
}

function toEvent(row: EventRow): AppliedEvent {
  return {
    eventId: row.event_id,
    platformOrderId: row.platform_order_id,
    kind: row.kind,
    outcome: row.outcome as EventOutcome,
    detail: row.detail,
    appliedAt: row.applied_at,
  };
}
