import type { Stats } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { watch as chokidarWatch } from 'chokidar';
import type { Logger } from '../../logger.js';
import type { ErpChange, ErpWatch } from '../ErpWatch.js';
import { FileAccessError } from './FileAccessError.js';
import type { RecordKind } from '../mapping/fields.js';
import type { FileErpConfig } from './fileConfigSchema.js';
import { INPUT_FORMATS, type InputFormat } from './locateInput.js';
import { orderExchangePaths } from './orders/orderExchangePaths.js';
import { waitUntilStable } from './waitUntilStable.js';

export interface DropFolderWatchOptions {
  /** Quiet time after the last event of a burst before the file is checked and reported. */
  debounceMs?: number;
}

const DEFAULT_DEBOUNCE_MS = 200;
const RECORD_KINDS = ['stock', 'prices', 'products'] as const satisfies readonly RecordKind[];

/**
 * Which change a path in the drop folder is, or undefined for anything the adapter does not
 * read: the exact input names (DIR/stock.csv, DIR/events.json, DIR/inbox/orders/X.json), so
 * temporary files (`.stock.csv.tmp`, `stock.csv.part`) and the archive and outbox folders never
 * match.
 */
export function classifyDropPath(config: FileErpConfig, path: string): ErpChange | undefined {
  const root = resolve(config.path);
  const inbox = resolve(orderExchangePaths(config).inboxDir);
  const dir = resolve(dirname(path));
  const name = basename(path);
  if (name.startsWith('.')) return undefined;
  const dot = name.lastIndexOf('.');
  if (dot <= 0) return undefined;
  const base = name.slice(0, dot);
  const ext = name.slice(dot + 1).toLowerCase();
  if (dir === inbox) return ext === 'json' ? 'outgoingOrders' : undefined;
  if (dir !== root) return undefined;
  if (base === 'events') return ext === 'csv' || ext === 'json' ? 'orderEvents' : undefined;
  if (!INPUT_FORMATS.includes(ext as InputFormat)) return undefined;
  return (RECORD_KINDS as readonly string[]).includes(base) ? (base as ErpChange) : undefined;
}

/**
 * Watches the drop folder (chokidar) and reports each completed drop once: a burst of events
 * for one change is debounced, then the file is awaited until stable (the adapter's own
 * `stableMs` rule, so a file renamed into place is reported at once and one still being written
 * once it stops growing). Only the drop folder itself and the inbox are watched: the archive and
 * outbox folders are never entered. Resolves once the watcher is ready; a drop folder that is
 * not there is a FileAccessError (a watcher on it would never report anything, unnoticed).
 */
export async function watchDropFolder(
  config: FileErpConfig,
  onChange: (change: ErpChange) => void,
  logger: Logger,
  options: DropFolderWatchOptions = {},
): Promise<ErpWatch> {
  const debounceMs = options.debounceMs ?? DEFAULT_DEBOUNCE_MS;
  const root = resolve(config.path);
  const inbox = resolve(orderExchangePaths(config).inboxDir);
  const watchedDirs = new Set([root, dirname(inbox), inbox]);
  const pending = new Map<ErpChange, PendingChange>();
  let stopped = false;
  const folder = await stat(root).catch((error: unknown) => error as Error);
  if (folder instanceof Error || !folder.isDirectory()) {
    const reason = folder instanceof Error ? folder.message : 'not a folder';
    throw new FileAccessError(
      `cannot watch the ERP drop folder ${root}: ${reason}`,
      { dir: root },
      { cause: folder },
    );
  }

  const watcher = chokidarWatch(root, {
    ignoreInitial: true,
    depth: 2,
    // Directories other than DIR, DIR/inbox and DIR/inbox/orders are never entered.
    ignored: (path, stats) => stats?.isDirectory() === true && !watchedDirs.has(resolve(path)),
  });

  const report = async (change: ErpChange, state: PendingChange) => {
    state.timer = undefined;
    state.checking = true;
    let stable: Stats | undefined;
    try {
      stable = await waitUntilStable(state.path, {
        stableMs: config.stableMs,
        timeoutMs: config.stableTimeoutMs,
      });
    } catch (error) {
      // Gone: nothing to read. Still being written past the timeout: report it, the read waits
      // again and fails retryably if it must.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') stable = undefined;
      else
        logger.warn(
          { file: basename(state.path), err: error },
          'watched file not stable; reporting it anyway',
        );
    }
    state.checking = false;
    if (stopped) return;
    if (stable !== undefined || (await exists(state.path))) emit(change);
    // Events that arrived while we waited: a new drop only if the file differs from the one reported.
    if (state.again) {
      state.again = false;
      const now = await stat(state.path).catch(() => undefined);
      if (
        now &&
        (!stable || now.mtimeMs !== stable.mtimeMs || now.size !== stable.size || now.ino !== stable.ino)
      )
        schedule(change, state.path);
    }
  };

  const emit = (change: ErpChange) => {
    logger.info({ change }, 'ERP drop detected');
    try {
      onChange(change);
    } catch (error) {
      logger.error({ change, err: error }, 'watch listener failed');
    }
  };

  const schedule = (change: ErpChange, path: string) => {
    if (stopped) return;
    let state = pending.get(change);
    if (!state) {
      state = { path, again: false, checking: false };
      pending.set(change, state);
    }
    state.path = path;
    if (state.checking) {
      state.again = true;
      return;
    }
    if (state.timer) clearTimeout(state.timer);
    const current = state;
    current.timer = setTimeout(() => void report(change, current), debounceMs);
  };

  const onEvent = (path: string) => {
    const change = classifyDropPath(config, path);
    if (change) schedule(change, resolve(path));
  };
  watcher.on('add', onEvent);
  watcher.on('change', onEvent);
  watcher.on('error', (error) => logger.warn({ err: error, dir: root }, 'drop folder watch error'));

  await new Promise<void>((ready) => watcher.once('ready', () => ready()));
  return {
    async stop() {
      stopped = true;
      for (const state of pending.values()) if (state.timer) clearTimeout(state.timer);
      pending.clear();
      await watcher.close();
    },
  };
}

interface PendingChange {
  path: string;
  timer?: NodeJS.Timeout;
  /** A stability wait is running for this change. */
  checking: boolean;
  /** Another event came during that wait. */
  again: boolean;
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}
