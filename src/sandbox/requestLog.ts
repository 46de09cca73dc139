import { createWriteStream, type WriteStream } from 'node:fs';
import type { KeyLabel } from './http/auth.js';

export type FaultKind = 'error' | 'rate_limited' | 'drop' | 'stall';

export interface RequestLogEntry {
  method: string;
  /** Without the query string, e.g. /api/v2/products/stock/bulk. */
  path: string;
  query: Record<string, string>;
  /** null when the response was dropped, stalled or abandoned by the client. */
  status: number | null;
  key: KeyLabel | null;
  /** ISO 8601 with milliseconds: when the request arrived. */
  at: string;
  durationMs: number;
  body?: unknown;
  fault?: FaultKind | null;
}

/** Keeps at most this many entries in memory (the oldest go first); the file log keeps all. */
const MAX_ENTRIES = 100_000;

export type RequestLogListener = (entry: RequestLogEntry) => void;

/** The in-process request log, optionally mirrored to a JSON-lines file. */
export class RequestLog {
  private list: RequestLogEntry[] = [];
  private readonly listeners = new Set<RequestLogListener>();
  private readonly file: WriteStream | null;

  constructor(filePath?: string) {
    this.file = filePath ? createWriteStream(filePath, { flags: 'a' }) : null;
  }

  add(entry: RequestLogEntry): void {
    this.list.push(entry);
    if (this.list.length > MAX_ENTRIES) this.list.splice(0, this.list.length - MAX_ENTRIES);
    this.file?.write(`${JSON.stringify(entry)}\n`);
    for (const listener of this.listeners) listener(entry);
  }

  /**
   * Calls `listener` with each entry as it is written, synchronously: before the sandbox takes the
   * next request, so a test can change the faults at an exact point of a client's work. Returns
   * the function that removes it.
   */
  onEntry(listener: RequestLogListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  entries(): RequestLogEntry[] {
    return [...this.list];
  }

  clear(): void {
    this.list = [];
  }

  async close(): Promise<void> {
    const file = this.file;
    if (file) await new Promise<void>((resolve) => file.end(resolve));
  }
}
