import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { SourceMap, type SourceMapPayload } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

interface ProfileNode {
  id: number;
  callFrame: { url: string; functionName: string; lineNumber: number; columnNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const STORE_FILE = /(^|\/)(src|dist)\/store\//;

const sourceMaps = new Map<string, SourceMap | null>();

/**
 * The source file of a frame: its own URL, or, in dist/ (one esbuild bundle: the store's code sits
 * in chunks with hashed names), the original file its source map names for the frame's position.
 */
function sourceOf(frame: ProfileNode['callFrame'] | undefined): string {
  if (!frame?.url.startsWith('file:') || STORE_FILE.test(frame.url)) return frame?.url ?? '';
  let map = sourceMaps.get(frame.url);
  if (map === undefined) {
    const file = `${fileURLToPath(frame.url)}.map`;
    map = existsSync(file) ? new SourceMap(JSON.parse(readFileSync(file, 'utf8')) as SourceMapPayload) : null;
    sourceMaps.set(frame.url, map);
  }
  const entry = map?.findEntry(frame.lineNumber, frame.columnNumber);
  return entry && 'originalSource' in entry ? entry.originalSource : frame.url;
}

/**
 * From the V8 CPU profile(s) a child wrote with `--cpu-prof --cpu-prof-dir DIR`: the CPU seconds
 * spent inside the store (any stack with a frame from src/store/, or from the store's code in dist/
 * by its source map; SQLite's native calls included, since they are children of the repository
 * method that made them) and in all.
 */
export function storeCpuSeconds(dir: string): { store: number; total: number } {
  let store = 0;
  let total = 0;
  for (const name of readdirSync(dir).filter((n) => n.endsWith('.cpuprofile'))) {
    const profile = JSON.parse(readFileSync(join(dir, name), 'utf8')) as CpuProfile;
    const parent = new Map<number, number>();
    const byId = new Map<number, ProfileNode>();
    for (const node of profile.nodes) {
      byId.set(node.id, node);
      for (const child of node.children ?? []) parent.set(child, node.id);
    }
    const inStore = new Map<number, boolean>();
    const isInStore = (id: number): boolean => {
      const known = inStore.get(id);
      if (known !== undefined) return known;
      const own = STORE_FILE.test(sourceOf(byId.get(id)?.callFrame));
      const up = parent.get(id);
      const value = own || (up !== undefined && isInStore(up));
      inStore.set(id, value);
      return value;
    };
    profile.samples.forEach((id, i) => {
      const delta = (profile.timeDeltas[i] ?? 0) / 1e6;
      total += delta;
      if (isInStore(id)) store += delta;
    });
  }
  return { store, total };
}
