import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { OutgoingOrder } from '../../../domain/orders.js';
import type { ErpRow } from '../../../domain/records.js';
import { outgoingOrderFromObject } from '../../mapping/outgoingOrderFromObject.js';
import type { Checkpointed } from '../../ErpAdapter.js';
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
    yield { row: toOutgoingOrder(text, name), checkpoint: name, path };
  }
}

export function toOutgoingOrder(text: string, file: string): ErpRow<OutgoingOrder> {
  const source = { file };
  const fail = (reason: string, key = file): ErpRow<OutgoingOrder> => ({ ok: false, key, reason, source });
  let raw: unknown;
  try {
    raw = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    return fail(`not valid JSON: ${(error as Error).message}`);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return fail('not a JSON object');
  return outgoingOrderFromObject(raw as Record<string, unknown>, source);
}
