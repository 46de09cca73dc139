#!/usr/bin/env node
// Runs the compiled CLI (npm run build) when it is at least as new as the sources, else the
// TypeScript sources through tsx: in a checkout, an edit is never hidden behind a stale dist/.
// An installed package or the Docker image has no src/ and always runs dist/.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const compiled = join(root, 'dist', 'cli', 'main.js');
const sources = join(root, 'src');

/** The newest modification time of the files under dir (0 when there is no such folder). */
function newest(dir) {
  let latest = 0;
  for (const entry of existsSync(dir) ? readdirSync(dir, { withFileTypes: true }) : []) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

if (existsSync(compiled) && newest(sources) <= statSync(compiled).mtimeMs) {
  await import(pathToFileURL(compiled).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(pathToFileURL(join(sources, 'cli', 'main.ts')).href);
}
