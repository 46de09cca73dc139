import type { Database, Statement } from 'better-sqlite3';

export type EventOutcome = 'applied' | 'rejected';

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
  readonly #record: Statement<[string, number | null, string, string, string | null, string]>;
  readonly #get: Statement<[string], EventRow>;
  readonly #count: Statement<[], { outcome: string; n: number }>;

  constructor(db: Database) {
    this.#record = db.prepare(
      `INSERT INTO applied_events (event_id, platform_order_id, kind, outcome, detail, applied_at)
       VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (event_id) DO NOTHING`,
    );
    this.#get = db.prepare('SELECT * FROM applied_events WHERE event_id = ?');
    this.#count = db.prepare('SELECT outcome, count(*) AS n FROM applied_events GROUP BY outcome');
  }

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
    return row
      ? {
          eventId: row.event_id,
          platformOrderId: row.platform_order_id,
          kind: row.kind,
          outcome: row.outcome as EventOutcome,
          detail: row.detail,
          appliedAt: row.applied_at,
        }
      : undefined;
  }

  counts(): Record<string, number> {
    return Object.fromEntries(this.#count.all().map((r) => [r.outcome, r.n]));
  }
}
