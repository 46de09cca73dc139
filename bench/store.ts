/**
 * npm run bench:store [-- --batches 100] [-- --sqlite-only] [-- --record]
 *
 * What the store costs per statement and per 1000-item batch of push bookkeeping, on SQLite (a WAL
 * file: the floor) and on PostgreSQL (127.0.0.1:5432, db test, a fresh schema; pg on the store's
 * worker thread, the caller blocking on each answer), measured in the same run, rounds taken in
 * turn so that the machine's load falls on both alike:
 * - a lone read (cursors.get) and a lone write (cursors.set: on PostgreSQL its own transaction
 *   with the store's advisory lock);
 * - per batch of 1000 keys, on rows that exist (the steady state of a changed-100k push): the
 *   fingerprint read (getMany), the scan's read (hashes) and the acknowledgements (putMany) alone;
 * - the push path's whole bookkeeping of a changed batch, through the push stages themselves
 *   (what a push job does with the store): the scan's read, `markInFlight` (the generation guard
 *   and the in-flight state), `recordPushResult` (the acknowledgements).
 * Wall time, and this process's CPU (process.cpuUsage: the worker thread included, the PostgreSQL
 * server's own CPU not). --sqlite-only runs the SQLite half alone (to compare with an older commit).
 * --record rewrites the "## Store: SQLite and PostgreSQL" section of bench/RESULTS.md.
 */
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { openStore, type Store } from '../src/store/index.js';
import { markInFlight, recordPushResult, type PushBatch } from '../src/sync/push/pushBatch.js';
import type { SyncContext } from '../src/sync/frame/types.js';
import { hasFlag, numberArg } from './support/benchArgs.js';
import { machineLine } from './support/machineLine.js';
import { recordSection } from './support/recordSection.js';

const BATCHES = numberArg('batches', 100);
const ROUNDS = numberArg('rounds', 3);
const SQLITE_ONLY = hasFlag('sqlite-only');
const RECORD = hasFlag('record');
const BATCH = 1000;
const LONE = 1000;
const POSTGRES_URL = process.env.ERP_SYNC_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const log = (text: string): void => void process.stderr.write(`${text}\n`);

interface Measure {
  wallMs: number;
  cpuMs: number;
}

function measure(fn: () => void): Measure {
  const cpu = process.cpuUsage();
  const start = performance.now();
  fn();
  const used = process.cpuUsage(cpu);
  return { wallMs: performance.now() - start, cpuMs: (used.user + used.system) / 1000 };
}

type Row = Record<string, Measure>;

function runOnce(store: Store, round: number): Row {
  const keys = (batch: number) => Array.from({ length: BATCH }, (_, i) => `SKU-${batch}-${i}`);
  const entries = (batch: number, generation: number, hash: string) =>
    keys(batch).map((key) => ({ key, hash, generation }));
  // Rows exist before the measured rounds (a changed push finds its keys stored).
  if (round === 0) {
    store.transaction(() => {
      for (let b = 0; b < BATCHES; b++) store.fingerprints.putMany('stock', entries(b, 1, 'h0'));
    });
  }
  const generation = store.generations.next('stock') + 1;
  store.cursors.set('bench', '0');
  return {
    'lone read (cursors.get)': measure(() => {
      for (let i = 0; i < LONE; i++) store.cursors.get('bench');
    }),
    'lone write (cursors.set)': measure(() => {
      for (let i = 0; i < LONE; i++) store.cursors.set('bench', String(i));
    }),
    'batch: fingerprint read (getMany, 1000 keys)': measure(() => {
      for (let b = 0; b < BATCHES; b++) store.fingerprints.getMany('stock', keys(b));
    }),
    "batch: the scan's read (hashes, 1000 keys)": measure(() => {
      for (let b = 0; b < BATCHES; b++) store.fingerprints.hashes('stock', keys(b));
    }),
    'batch: push bookkeeping (scan read, markInFlight, recordPushResult, 1000)': measure(() => {
      // The stages read nothing else of the context: the store alone.
      const ctx = { store } as SyncContext;
      const pushGeneration = store.generations.next('stock');
      for (let b = 0; b < BATCHES; b++) {
        const batch: PushBatch<unknown> = {
          pipeline: 'stock',
          generation: pushGeneration,
          items: keys(b).map((key) => ({ key, sku: key, hash: `q=${round + 10}`, wire: null })),
        };
        store.fingerprints.hashes('stock', keys(b), { before: pushGeneration });
        const { items, id } = markInFlight(ctx, batch);
        recordPushResult(ctx, batch, { applied: items, missing: [], refused: [] }, id);
      }
    }),
    'batch: acknowledgements (putMany, 1000)': measure(() => {
      for (let b = 0; b < BATCHES; b++)
        store.fingerprints.putMany('stock', entries(b, generation, `h${round}`));
    }),
  };
}

async function openStores(): Promise<{ name: string; store: Store; close(): void }[]> {
  const dir = mkdtempSync(join(tmpdir(), 'erp-sync-bench-store-'));
  const sqlite = openStore(join(dir, 'store.db'));
  const stores = [
    {
      name: 'SQLite',
      store: sqlite,
      close: () => {
        sqlite.close();
        rmSync(dir, { recursive: true, force: true });
      },
    },
  ];
  if (SQLITE_ONLY) return stores;
  const { openPostgresStore, dropPostgresStore } = await import('../src/store/index.js');
  const schema = `bench_store_${process.pid}`;
  const postgres = openPostgresStore({ url: POSTGRES_URL, schema });
  stores.push({
    name: 'PostgreSQL',
    store: postgres,
    close: () => {
      dropPostgresStore(postgres, schema);
      postgres.close();
    },
  });
  return stores;
}

const median = (values: number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const stores = await openStores();
const results = new Map<string, Row[]>(stores.map((s) => [s.name, []]));
const load: number[] = [loadavg()[0]!];
process.stderr.write(`load ${loadavg()[0]!.toFixed(1)}\n`);
try {
  for (let round = 0; round < ROUNDS; round++) {
    for (const { name, store } of stores) {
      results.get(name)!.push(runOnce(store, round));
      log(`round ${round + 1}/${ROUNDS} ${name} done`);
    }
  }
} finally {
  for (const s of stores) s.close();
}
load.push(loadavg()[0]!);

const names = Object.keys(results.get('SQLite')![0]!);
const perUnit = (name: string) => (name.startsWith('batch') ? BATCHES : LONE);
const cell = (store: string, name: string, what: keyof Measure): number =>
  median(results.get(store)!.map((row) => row[name]![what])) / perUnit(name);
const header = [
  'measure (median of rounds)',
  ...stores.flatMap((s) => [`${s.name} ms wall`, `${s.name} ms CPU`]),
];
if (!SQLITE_ONLY) header.push('PostgreSQL / SQLite (wall)');
const lines = names.map((name) => {
  const cells = stores.flatMap((s) => [
    cell(s.name, name, 'wallMs').toFixed(3),
    cell(s.name, name, 'cpuMs').toFixed(3),
  ]);
  if (!SQLITE_ONLY)
    cells.push(`${(cell('PostgreSQL', name, 'wallMs') / cell('SQLite', name, 'wallMs')).toFixed(1)}x`);
  return `| ${name}, per ${name.startsWith('batch') ? 'batch' : 'statement'} | ${cells.join(' | ')} |`;
});
const PUSH_ROW = 'batch: push bookkeeping (scan read, markInFlight, recordPushResult, 1000)';
const per100k = stores.map(
  (s) =>
    `${s.name} ${((cell(s.name, PUSH_ROW, 'cpuMs') * 100) / 1000).toFixed(2)} s CPU ` +
    `(${((cell(s.name, PUSH_ROW, 'wallMs') * 100) / 1000).toFixed(2)} s wall)`,
);
const table = [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...lines].join('\n');
const section = `## Store: SQLite and PostgreSQL

\`npm run bench:store\` (\`bench/store.ts\`): ${ROUNDS} rounds, each store in turn; ${LONE} lone statements and
${BATCHES} batches of ${BATCH} keys per round, on existing rows. ${machineLine()} Load average ${load
  .map((l) => l.toFixed(1))
  .join(' -> ')}.

${table}

The push path's store bookkeeping per 100k changed items (the scan's read, markInFlight, recordPushResult): ${per100k.join(', ')}.
`;
process.stdout.write(`${section}\n`);
if (RECORD) recordSection('## Store: SQLite and PostgreSQL', section);
