import type { SqlDatabase, SqlStatement } from './sql/SqlDatabase.js';
import { processIdentity } from './processIdentity.js';

export type RunStatus = 'running' | 'ok' | 'failed';

/** One run of one pipeline: when, with which options, what it counted, how it ended. */
export interface SyncRun {
  id: number;
  pipeline: string;
  status: RunStatus;
  startedAt: string;
  finishedAt: string | null;
  options: Record<string, unknown>;
  counts: Record<string, unknown> | null;
  error: string | null;
  /** "host:pid:start" of the process that ran it (null for runs recorded before it was kept). */
  owner: string | null;
}

interface RunRow {
  id: number;
  pipeline: string;
  status: RunStatus;
  started_at: string;
  finished_at: string | null;
  options: string;
  counts: string | null;
  error: string | null;
  owner: string | null;
}

export class RunRepository {
  readonly #start: SqlStatement<[string, string, string, string], { id: number }>;
  readonly #progress: SqlStatement<[string, string, string]>;
  readonly #finish: SqlStatement<[string, string, string, string | null, number]>;
  readonly #recent: SqlStatement<[number], RunRow>;
  readonly #last: SqlStatement<[string], RunRow>;
  readonly #get: SqlStatement<[number], RunRow>;
  readonly #lastOk: SqlStatement<[string], RunRow>;

  constructor(db: SqlDatabase) {
    this.#start = db.prepare(
      `INSERT INTO runs (pipeline, status, started_at, options, owner) VALUES (?, 'running', ?, ?, ?) RETURNING id`,
    );
    this.#progress = db.prepare(
      `UPDATE runs SET counts = ?
       WHERE id = (SELECT MAX(id) FROM runs WHERE pipeline = ?) AND status = 'running' AND owner = ?`,
    );
    this.#finish = db.prepare(
      'UPDATE runs SET status = ?, finished_at = ?, counts = ?, error = ? WHERE id = ?',
    );
    this.#recent = db.prepare('SELECT * FROM runs ORDER BY id DESC LIMIT ?');
    this.#last = db.prepare('SELECT * FROM runs WHERE pipeline = ? ORDER BY id DESC LIMIT 1');
    this.#get = db.prepare('SELECT * FROM runs WHERE id = ?');
    this.#lastOk = db.prepare(
      `SELECT * FROM runs WHERE pipeline = ? AND status = 'ok' ORDER BY id DESC LIMIT 1`,
    );
  }

  start(pipeline: string, options: object = {}): number {
    return this.#start.get(pipeline, new Date().toISOString(), JSON.stringify(options), processIdentity())!
      .id;
  }

  /**
   * The counts so far of this process's latest run of `pipeline` while it runs, for `status`
   * (finish() writes the final ones). Does nothing for a dry run, which records no run.
   */
  recordProgress(pipeline: string, counts: object): void {
    this.#progress.run(JSON.stringify(counts), pipeline, processIdentity());
  }

  /** Ends a run: `failed` when an error is given, `ok` otherwise. */
  finish(id: number, result: { counts: object; error?: string }): void {
    const status: RunStatus = result.error === undefined ? 'ok' : 'failed';
    this.#finish.run(
      status,
      new Date().toISOString(),
      JSON.stringify(result.counts),
      result.error ?? null,
      id,
    );
  }

  /** The latest runs of all pipelines, newest first. */
  recent(limit = 20): SyncRun[] {
    return this.#recent.all(limit).map(toRun);
  }

  last(pipeline: string): SyncRun | undefined {
    const row = this.#last.get(pipeline);
    return row ? toRun(row) : undefined;
  }

  /** The latest run that ended without error (the daemon's lag is measured from it). */
  lastOk(pipeline: string): SyncRun | undefined {
    const row = this.#lastOk.get(pipeline);
    return row ? toRun(row) : undefined;
  }

  get(id: number): SyncRun | undefined {
    const row = this.#get.get(id);
    return row ? toRun(row) : undefined;
  }
}

function toRun(row: RunRow): SyncRun {
  return {
    id: row.id,
    pipeline: row.pipeline,
    status: row.status,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    options: JSON.parse(row.options) as Record<string, unknown>,
    counts: row.counts === null ? null : (JSON.parse(row.counts) as Record<string, unknown>),
    error: row.error,
    owner: row.owner,
  };
}
