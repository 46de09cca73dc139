import type { SqlDatabase } from './sql/SqlDatabase.js';
import type { Migration } from './migrations.js';
import { StoreError } from './StoreError.js';

/**
 * Applies the migrations not applied yet, each in its own transaction (the write lock from its
 * start) so that two processes opening the same new file do not both run one (the second waits,
 * then sees it done).
 */
export function migrate(db: SqlDatabase, migrations: readonly Migration[]): number[] {
  db.transaction(() =>
    db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version INTEGER PRIMARY KEY,
      name TEXT NOT NULL,
      applied_at TEXT NOT NULL
    )`),
  );
  const versions = migrations.map((m) => m.version);
  if (new Set(versions).size !== versions.length) {
    throw new StoreError('duplicate migration version in the migration list');
  }
  // A version recorded stays recorded: those are skipped without taking the write lock (every
  // command's open, usually all of them); the others are checked again under the lock.
  const recorded = new Set(
    db.prepare<[], number>('SELECT version FROM schema_migrations').pluck().all().map(Number),
  );
  const isApplied = db.prepare<[number], { version: number }>(
    'SELECT version FROM schema_migrations WHERE version = ?',
  );
  const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
  const applied: number[] = [];
  for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
    if (recorded.has(migration.version)) continue;
    const apply = () => {
      if (isApplied.get(migration.version)) return false;
      migration.up(db);
      record.run(migration.version, migration.name, new Date().toISOString());
      return true;
    };
    try {
      if (db.transaction(apply)) applied.push(migration.version);
    } catch (error) {
      throw new StoreError(
        `migration ${migration.version} (${migration.name}) failed: ${(error as Error).message}`,
        {
          cause: error,
        },
      );
    }
  }
  return applied;
}
