import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { url: string; functionName: string };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/**
 * From the V8 CPU profile(s) a child wrote with `--cpu-prof --cpu-prof-dir DIR`: the CPU seconds
 * spent inside the store (any stack with a frame from src/store/ or, installed, dist/store/; SQLite's native calls included,
 * since they are children of the repository method that made them) and in all.
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
      const own = /\/(src|dist)\/store\//.test(byId.get(id)?.callFrame.url ?? '');
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
