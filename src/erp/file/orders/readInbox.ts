import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { OutgoingOrder } from '../../../domain/orders.js';
import type { ErpRow } from '../../../domain/records.js';
import type { Checkpointed } from '../../ErpAdapter.js';
import { toOutgoingOrder } from '../../mapping/toOutgoingOrder.js';
import { isTempFileName } from './atomicFile.js';

/**
 * ERP-origin orders: every `*.json` in the inbox folder, by name. The checkpoint is the file
 * name; files are moved to `done/` once their platform order exists, so the folder itself is the
 * queue and the checkpoint is informative only.
 */
export async function* readInbox(dir: string): AsyncIterable<Checkpointed<OutgoingOrder> & { path: string }> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  for (const name of names.filter((n) => n.toLowerCase().endsWith('.json') && !isTempFileName(n)).sort()) {
    const path = join(dir, name);
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      // Gone meanwhile (moved by another run), or a folder that happens to end in .json.
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'EISDIR') continue;
      throw error;
    }
    yield { row: parseInboxFile(text, name), checkpoint: name, path };
  }
}

/** An inbox file's text to an order, or a reject naming the file. */
function parseInboxFile(text: string, file: string): ErpRow<OutgoingOrder> {
  const source = { file };
  let raw: unknown;
  try {
    raw = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    return { ok: false, key: file, reason: `not valid JSON: ${(error as Error).message}`, source };
  }
  return toOutgoingOrder(raw, source);
}
