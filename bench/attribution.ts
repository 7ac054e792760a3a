// v2 attribution speed on the largest single document the limits allow (1,000 roots, ~80,000 vertices, ~450,000
// edges, 10,000 packages): in process (graph build, the floor, the walk on 1 thread and on the pool, assembly), and
// from upload to completed through the real API and worker with 1 attribution thread and with the default pool.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { syntheticSnapshot } from '../src/domain/snapshot';
import { moduleRank, orderModules } from '../src/domain/attribution/module-order';
import { assembleV2, planBatches, planShards, vulnerableMask } from '../src/domain/attribution/v2-assemble';
import { buildAttributionGraph, type AttributionGraph } from '../src/domain/attribution/v2-graph';
import { walkShard, type ShardTask } from '../src/domain/attribution/v2-walk';
import { attributionPool, defaultThreads } from '../src/pool/attribution-pool';
import { ATTRIBUTION_SHARDS } from '../activities';
import type { Snapshot } from '../src/shared/types';
import type { Harness } from './harness';
import { uploadToCompleted } from './scenarios';
import { fmt, median, row, timed } from './stats';

/** Every VULNERABLE_EVERY-th package of the largest document has an advisory. */
export const VULNERABLE_EVERY = 10;

export function largestV2(project = 'largest-v2'): Snapshot {
  return syntheticSnapshot({
    schemaVersion: 2,
    nodes: 10_000,
    roots: 1000,
    depsPerNode: 7,
    packagesPerRoot: 79,
    rootDeps: 2,
    project,
    ecosystem: 'javascript',
  });
}

/** OSV advisories for the largest document's vulnerable packages (npm, every version below 9). */
export function largestV2Advisories(s: Snapshot): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-v2-adv-'));
  const advisories = s.nodes
    .filter((_, i) => i % VULNERABLE_EVERY === 0)
    .map((n, i) => ({
      id: `GHSA-bv2x-${String(i).padStart(4, '0')}-xxxx`,
      modified: '2024-01-01T00:00:00Z',
      published: '2024-01-01T00:00:00Z',
      summary: `synthetic v2 advisory ${i}`,
      affected: [
        {
          package: { ecosystem: 'npm', name: n.name },
          ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '9.0.0' }] }],
        },
      ],
    }));
  fs.writeFileSync(path.join(dir, 'v2.json'), JSON.stringify(advisories));
  return dir;
}

/**
 * The floor: one plain BFS per root over its resolution, on the same typed arrays, single-threaded. With `perTarget`,
 * one plain backward BFS per (root, vulnerable package) instead: the distances every exact per-package path needs.
 */
function plainBfs(g: AttributionGraph, perTarget?: Uint8Array): number {
  const n = g.label.length;
  const seen = new Int32Array(n).fill(-1);
  const queue = new Int32Array(n);
  let visited = 0;
  let stamp = 0;
  for (let r = 0; r < g.resRoot.length; r++) {
    if (perTarget) {
      for (let t = g.resStart[r]; t < g.resStart[r + 1]; t++) {
        if (g.isModule[t] || !perTarget[g.label[t]]) continue;
        stamp++;
        let head = 0;
        let tail = 0;
        queue[tail++] = t;
        seen[t] = stamp;
        while (head < tail) {
          const u = queue[head++];
          for (let k = g.rOffsets[u]; k < g.rOffsets[u + 1]; k++) {
            const v = g.rTargets[k];
            if (seen[v] !== stamp) {
              seen[v] = stamp;
              queue[tail++] = v;
            }
          }
        }
        visited += tail;
      }
      continue;
    }
    let head = 0;
    let tail = 0;
    stamp++;
    queue[tail++] = g.resRoot[r];
    seen[g.resRoot[r]] = stamp;
    while (head < tail) {
      const u = queue[head++];
      for (let k = g.offsets[u]; k < g.offsets[u + 1]; k++) {
        const v = g.targets[k];
        if (seen[v] !== stamp) {
          seen[v] = stamp;
          queue[tail++] = v;
        }
      }
    }
    visited += tail;
  }
  return visited;
}

const runs = <T>(n: number, fn: () => T): number[] =>
  Array.from({ length: n }, () => {
    const t0 = performance.now();
    fn();
    return performance.now() - t0;
  });

export async function attributionInProcessBench(): Promise<void> {
  const s = largestV2();
  const vertices = s.roots.reduce((a, r) => a + r.resolution!.vertices.length, 0);
  const edges = s.roots.reduce((a, r) => a + r.resolution!.vertices.reduce((b, v) => b + v.dependencies.length, 0), 0);
  const bytes = JSON.stringify(s).length;
  console.log(
    `v2 attribution: ${s.roots.length} roots, ${vertices} vertices, ${edges} edges, ${s.nodes.length} packages, ${(bytes / 1e6).toFixed(1)} MB, every ${VULNERABLE_EVERY}th package vulnerable`,
  );
  const [built, buildMs] = await timed(async () => buildAttributionGraph(s));
  row('  graph build (typed arrays, once per scan)', fmt(buildMs));
  const vulnerableIds = s.nodes.filter((_, i) => i % VULNERABLE_EVERY === 0).map((n) => n.id);
  const vulnerable = vulnerableMask(built, vulnerableIds);
  const all = Int32Array.from({ length: s.roots.length }, (_, i) => i);
  const budget = { maxSegments: 1e6, maxCharacters: 8e6 };

  runs(20, () => plainBfs(built.graph)); // warm-up
  const floors: number[] = runs(15, () => plainBfs(built.graph));
  row('  floor: plain BFS per root, 1 thread', fmt(median(floors)));
  // This machine's speed drifts from minute to minute: every figure is measured alternating with the floor, and
  // compared with the floor of its own runs.
  async function versusFloor(fn: () => unknown): Promise<{ ms: number; ratio: string }> {
    for (let i = 0; i < 20; i++) await fn(); // JIT warm-up, threads started
    const own: number[] = [];
    const floor: number[] = [];
    for (let i = 0; i < 21; i++) {
      floor.push(runs(1, () => plainBfs(built.graph))[0]);
      const t0 = performance.now();
      await fn();
      own.push(performance.now() - t0);
    }
    floors.push(...floor);
    return { ms: median(own), ratio: `${(median(own) / median(floor)).toFixed(1)}× floor` };
  }
  const perTarget = await versusFloor(() => plainBfs(built.graph, vulnerable));
  row(
    `  plain backward BFS per (root, vulnerable pkg), every ${VULNERABLE_EVERY}th`,
    `${fmt(perTarget.ms)} = ${perTarget.ratio}`,
  );
  // The walk's cost grows with the vulnerable packages per root: measured at 2.5 % (every 40th package, a heavy real
  // scan) and at 10 % (every 10th, the end-to-end document's advisories): each strategy alone, then the walk as it
  // runs (the cheaper strategy per resolution) on 1 thread and on the pool.
  const pool = attributionPool();
  try {
    const shards = planShards(built.graph, ATTRIBUTION_SHARDS);
    const batches = planBatches(
      built.graph,
      shards,
      shards.map((_, k) => k),
      pool.threads,
    );
    let outputs: Int32Array[] = [];
    for (const every of [40, VULNERABLE_EVERY]) {
      const mask =
        every === VULNERABLE_EVERY
          ? vulnerable
          : vulnerableMask(
              built,
              s.nodes.filter((_, i) => i % every === 0).map((n) => n.id),
            );
      const task = (strategy: ShardTask['strategy']): ShardTask => ({
        graph: built.graph,
        resolutions: all,
        vulnerable: mask,
        ...budget,
        strategy,
      });
      for (const strategy of ['backward', 'forward'] as const) {
        const alone = await versusFloor(() => walkShard(task(strategy)));
        row(
          `  walk, every ${every}th vulnerable, ${strategy} strategy only, 1 thread`,
          `${fmt(alone.ms)} = ${alone.ratio}`,
        );
      }
      const chosen = walkShard(task('auto'));
      const one = await versusFloor(() => walkShard(task('auto')));
      row(
        `  attribution walk, every ${every}th (${chosen.forward} roots fwd, ${chosen.backward} back), 1 thread`,
        fmt(one.ms),
        `≤ 3× floor: ${one.ratio}`,
      );
      const pooled = await versusFloor(async () => {
        const outs = await Promise.all(
          batches.map((batch) =>
            pool.run({ graph: built.graph, shards: batch.map((k) => shards[k]), vulnerable: mask, ...budget }),
          ),
        );
        outputs = outs.flat().map((o) => o.data);
      });
      row(
        `  attribution walk, every ${every}th, ${shards.length} shards in ${batches.length} tasks, pool of ${pool.threads}`,
        fmt(pooled.ms),
        `≤ 3× floor: ${pooled.ratio}`,
      );
    }
    row('  floor over all the runs above (median)', fmt(median(floors)));
    const rank = moduleRank(orderModules(s.modules ?? []));
    const [v2, assembleMs] = await timed(async () => assembleV2(s, built.labels, outputs, rank));
    let attributions = 0;
    for (const list of v2.attributions.values()) attributions += list.length;
    row(`  assembly into ${attributions} attributions of ${v2.attributions.size} packages`, fmt(assembleMs));
  } finally {
    await pool.close();
  }
}

/** Upload → completed of the largest document through the real services, with the worker's current thread count. */
export async function attributionEndToEnd(h: Harness, label: string, n = 3): Promise<number> {
  return median(await uploadToCompleted(h, JSON.stringify(largestV2(`largest-v2-${label}`)), n, 5));
}

export { defaultThreads };
