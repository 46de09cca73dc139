import { readdir as readdirCallback } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { RecordKind } from '../mapping/fields.js';
import { FileAccessError } from './FileAccessError.js';

export const INPUT_FORMATS = ['csv', 'json', 'ndjson', 'xml'] as const;
// node:fs's callback form, promisified: node:fs/promises loads about ten of Node's modules (readline
// among them) that `erp-sync check` would load for this one listing (bench/RESULTS.md, "What the
// commands load at start").
const readdir = promisify(readdirCallback);

export type InputFormat = (typeof INPUT_FORMATS)[number];

export interface InputFile {
  kind: RecordKind;
  name: string;
  path: string;
  format: InputFormat;
  /** Other files of the same kind found and ignored (e.g. stock.csv and stock.json together). */
  ignored: string[];
}

/**
 * Finds DIR/<kind>.<csv|json|ndjson|xml> (extension matched case-insensitively). When several
 * exist, the first in that order is used and the others are reported as ignored.
 * Undefined when there is none; a folder that cannot be read is an error.
 */
export async function locateInput(dir: string, kind: RecordKind): Promise<InputFile | undefined> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    throw new FileAccessError(
      `cannot read the ERP drop folder ${dir}: ${(error as Error).message}`,
      { dir },
      {
        cause: error,
      },
    );
  }
  const candidates: { name: string; format: InputFormat }[] = [];
  for (const name of names) {
    const dot = name.lastIndexOf('.');
    if (dot <= 0 || name.slice(0, dot) !== kind) continue;
    const format = name.slice(dot + 1).toLowerCase() as InputFormat;
    if (INPUT_FORMATS.includes(format)) candidates.push({ name, format });
  }
  candidates.sort((a, b) => INPUT_FORMATS.indexOf(a.format) - INPUT_FORMATS.indexOf(b.format));
  const [chosen, ...rest] = candidates;
  if (!chosen) return undefined;
  return {
    kind,
    name: chosen.name,
    path: join(dir, chosen.name),
    format: chosen.format,
    ignored: rest.map((c) => c.name),
  };
}
