import { readFileSync, writeFileSync } from 'node:fs';

export const RESULTS_PATH = 'bench/RESULTS.md';

/**
 * Replaces the section that starts with `heading` (up to the next `## `) in bench/RESULTS.md by
 * `section`, which starts with that heading (or appends it when there is none yet); the other
 * sections stay as they are.
 */
export function recordSection(heading: string, section: string): void {
  const text = readFileSync(RESULTS_PATH, 'utf8');
  const start = text.indexOf(heading);
  if (start < 0) {
    // a new benchmark: its section goes at the end
    writeFileSync(RESULTS_PATH, `${text.trimEnd()}\n\n${section.trimEnd()}\n`);
    process.stderr.write(`recorded in ${RESULTS_PATH}\n`);
    return;
  }
  const end = text.indexOf('\n## ', start + 1);
  const rest = end >= 0 ? `\n${text.slice(end + 1)}` : '';
  writeFileSync(RESULTS_PATH, `${text.slice(0, start)}${section.trimEnd()}\n${rest}`);
  process.stderr.write(`recorded in ${RESULTS_PATH}\n`);
}
