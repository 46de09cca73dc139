import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export type StateKey = 'stock' | 'prices';

/**
 * The adapter's read checkpoints (Tryton timestamps, ISO), in a small JSON file so that a commit
 * made by one process is seen by the next read of another. A checkpoint only moves forward;
 * the file is replaced atomically.
 */
export class TrytonState {
  constructor(readonly path: string) {}

  get(key: StateKey): Date | null {
    const value = this.#read()[key];
    return typeof value === 'string' && !Number.isNaN(Date.parse(value)) ? new Date(value) : null;
  }

  advance(key: StateKey, to: Date): void {
    const state = this.#read();
    const current = typeof state[key] === 'string' ? Date.parse(state[key]) : Number.NEGATIVE_INFINITY;
    if (!(to.getTime() > current)) return;
    state[key] = to.toISOString();
    mkdirSync(dirname(this.path), { recursive: true });
    const temporary = `${this.path}.${process.pid}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(state, null, 2)}\n`);
    renameSync(temporary, this.path);
  }

  #read(): Record<string, string> {
    try {
      const parsed: unknown = JSON.parse(readFileSync(this.path, 'utf8'));
      return parsed !== null && typeof parsed === 'object' ? (parsed as Record<string, string>) : {};
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw error;
    }
  }
}
