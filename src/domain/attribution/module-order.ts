// Scan.modules order: strongly connected components of the module dependency graph, each one's
// members sorted alphabetically; components emitted dependencies first, the alphabetically smallest ready component
// first. Strings compare by UTF-16 code units, as everywhere else. Iterative Tarjan: 1,000-module chains are fine.
import type { SnapshotModule } from '../../shared/types';

export interface ScanModule {
  path: string;
  dependencies: string[];
  teamName?: string | null;
  attributes?: Record<string, string>;
}

const cmpStr = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Component number of every vertex (Tarjan, iterative). */
function components(n: number, adj: number[][]): { comp: Int32Array; count: number } {
  const index = new Int32Array(n).fill(-1);
  const low = new Int32Array(n);
  const onStack = new Uint8Array(n);
  const comp = new Int32Array(n).fill(-1);
  const stack: number[] = [];
  let next = 0;
  let count = 0;
  for (let s = 0; s < n; s++) {
    if (index[s] !== -1) continue;
    const work: Array<[number, number]> = [[s, 0]];
    index[s] = low[s] = next++;
    stack.push(s);
    onStack[s] = 1;
    while (work.length) {
      const top = work[work.length - 1];
      const [v, i] = top;
      if (i < adj[v].length) {
        top[1]++;
        const w = adj[v][i];
        if (index[w] === -1) {
          index[w] = low[w] = next++;
          stack.push(w);
          onStack[w] = 1;
          work.push([w, 0]);
        } else if (onStack[w]) low[v] = Math.min(low[v], index[w]);
        continue;
      }
      work.pop();
      if (work.length) {
        const u = work[work.length - 1][0];
        low[u] = Math.min(low[u], low[v]);
      }
      if (low[v] === index[v]) {
        let w: number;
        do {
          w = stack.pop()!;
          onStack[w] = 0;
          comp[w] = count;
        } while (w !== v);
        count++;
      }
    }
  }
  return { comp, count };
}

export function orderModules(modules: SnapshotModule[]): ScanModule[] {
  const paths = modules.map((m) => m.path);
  const at = new Map(paths.map((p, i) => [p, i]));
  // Edge m → d for "m depends on d"; dependencies on modules not in the list do not order anything.
  const adj = modules.map((m) =>
    (m.dependencies ?? []).map((d) => at.get(d)).filter((d): d is number => d !== undefined),
  );
  const { comp, count } = components(modules.length, adj);
  const members: number[][] = Array.from({ length: count }, () => []);
  modules.forEach((_, i) => members[comp[i]].push(i));
  for (const list of members) list.sort((a, b) => cmpStr(paths[a], paths[b]));
  // Kahn over the condensation: a component is ready once every component it depends on is emitted.
  const waitingOn = new Int32Array(count);
  const dependents: number[][] = Array.from({ length: count }, () => []);
  const edges = new Set<number>();
  adj.forEach((ds, m) => {
    for (const d of ds) {
      const a = comp[m];
      const b = comp[d];
      if (a === b || edges.has(a * count + b)) continue;
      edges.add(a * count + b);
      waitingOn[a]++;
      dependents[b].push(a);
    }
  });
  // Components ranked once by their first path, so that choosing the next ready one compares integers.
  const byFirstPath = Array.from({ length: count }, (_, c) => c).sort((a, b) =>
    cmpStr(paths[members[a][0]], paths[members[b][0]]),
  );
  const rank = new Int32Array(count);
  byFirstPath.forEach((c, r) => (rank[c] = r));
  const ready: number[] = [];
  for (let c = 0; c < count; c++) if (waitingOn[c] === 0) ready.push(c);
  const out: ScanModule[] = [];
  while (ready.length) {
    // at most 1,000 modules: a linear scan of integer ranks for the smallest ready component is plenty
    let best = 0;
    for (let k = 1; k < ready.length; k++) if (rank[ready[k]] < rank[ready[best]]) best = k;
    const c = ready.splice(best, 1)[0];
    for (const i of members[c]) {
      const m = modules[i];
      const item: ScanModule = { path: m.path, dependencies: [...(m.dependencies ?? [])] };
      if (m.teamName !== undefined) item.teamName = m.teamName;
      if (m.attributes !== undefined) item.attributes = { ...m.attributes };
      out.push(item);
    }
    for (const d of dependents[c]) if (--waitingOn[d] === 0) ready.push(d);
  }
  return out;
}

export function moduleRank(order: ScanModule[]): Map<string, number> {
  return new Map(order.map((m, i) => [m.path, i]));
}
