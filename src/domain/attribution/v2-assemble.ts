// From shard outputs (label numbers) to the API's Attribution and Origin objects, in their orders: attributions
// by the scan's module order, then context; origins by module order, then dependency id. Finding.path of a v2 scan is
// the shortest of its attributions' paths, ties broken element by element. Also the shard plan and the inline runner.
import type { FindingAttribution, FindingOrigin, Snapshot } from '../../shared/types';
import { AttributionLimitExceeded, MAX_PATH_CHARACTERS, MAX_PATH_SEGMENTS } from './budget';
import type { AttributionGraph, BuiltGraph } from './v2-graph';
import { decodeShard, walkShard, type ShardOutput, type ShardTask } from './v2-walk';
import { cmpStr, comparePaths } from './paths';

export interface V2Attribution {
  /** package id → attributions, in order */
  attributions: Map<string, FindingAttribution[]>;
  /** package id → Finding.path */
  paths: Map<string, string[]>;
}

/** 1 at the label of every vulnerable package id the graph has. */
export function vulnerableMask(built: BuiltGraph, packageIds: Iterable<string>): Uint8Array {
  const mask = new Uint8Array(new SharedArrayBuffer(built.labels.length));
  for (const id of packageIds) {
    const l = built.labelOf.get(id);
    if (l !== undefined) mask[l] = 1;
  }
  return mask;
}

/**
 * Contiguous runs of resolutions of about equal size (vertices + edges), at most `maxShards` of them. Depends on
 * the snapshot only, never on the thread count, so that a retried activity on another worker resumes the same plan.
 */
export function planShards(g: AttributionGraph, maxShards: number): Int32Array[] {
  const roots = g.resRoot.length;
  const sizeOf = (r: number) =>
    g.resStart[r + 1] - g.resStart[r] + g.offsets[g.resStart[r + 1]] - g.offsets[g.resStart[r]];
  let total = 0;
  for (let r = 0; r < roots; r++) total += sizeOf(r);
  const count = Math.max(1, Math.min(maxShards, roots));
  const per = total / count;
  const shards: Int32Array[] = [];
  let start = 0;
  let acc = 0;
  for (let r = 0; r < roots; r++) {
    acc += sizeOf(r);
    const remainingShards = count - shards.length - 1;
    if ((acc >= per * (shards.length + 1) && remainingShards > 0) || r === roots - 1) {
      shards.push(Int32Array.from({ length: r + 1 - start }, (_, i) => start + i));
      start = r + 1;
    }
  }
  return shards;
}

/** Pool tasks carry shards in batches of about this many vertices + edges (see planBatches). */
export const BATCH_SIZE = 65_536;

/**
 * Groups the shards still to walk (their numbers, ascending) into pool tasks of consecutive shards of about
 * BATCH_SIZE vertices + edges, and at least `threads` of them when there are enough shards. A shard's output does not
 * depend on its batch: batching only saves per-task overhead (on the largest document a task costs about as much as
 * a shard's walk), while shards stay the unit of storage, heartbeat and resume.
 */
export function planBatches(g: AttributionGraph, shards: Int32Array[], pending: number[], threads: number): number[][] {
  const sizeOf = (k: number) => {
    const rs = shards[k];
    if (rs.length === 0) return 0;
    const first = g.resStart[rs[0]];
    const end = g.resStart[rs[rs.length - 1] + 1];
    return end - first + g.offsets[end] - g.offsets[first];
  };
  let total = 0;
  for (const k of pending) total += sizeOf(k);
  const count = Math.min(pending.length, Math.max(threads, Math.ceil(total / BATCH_SIZE)));
  const batches: number[][] = [];
  let acc = 0;
  for (const k of pending) {
    if (batches.length === 0 || (acc >= (total / count) * batches.length && batches.length < count)) batches.push([]);
    batches[batches.length - 1].push(k);
    acc += sizeOf(k);
  }
  return batches;
}

/** Adds the shards' own budget counts; over the scan's budget the scan fails before anything is assembled. */
export function checkShardBudget(outputs: Pick<ShardOutput, 'segments' | 'characters' | 'overBudget'>[]): void {
  let segments = 0;
  let characters = 0;
  for (const o of outputs) {
    segments += o.segments;
    characters += o.characters;
    if (o.overBudget || segments > MAX_PATH_SEGMENTS || characters > MAX_PATH_CHARACTERS)
      throw new AttributionLimitExceeded(segments, characters);
  }
}

export function assembleV2(
  snapshot: Snapshot,
  labels: string[],
  outputs: Int32Array[],
  moduleRank: Map<string, number>,
): V2Attribution {
  const rank = (m: string) => moduleRank.get(m) ?? Number.MAX_SAFE_INTEGER;
  const byModule = (a: string, b: string) => rank(a) - rank(b) || cmpStr(a, b);
  const toStrings = (p: Int32Array) => {
    const out: string[] = new Array(p.length); // a plain loop: Array.from with a mapper is several times slower
    for (let i = 0; i < p.length; i++) out[i] = labels[p[i]];
    return out;
  };
  const attributions = new Map<string, FindingAttribution[]>();
  for (const data of outputs) {
    for (const rec of decodeShard(data)) {
      const root = snapshot.roots[rec.resolution];
      const path = toStrings(rec.path);
      const origins: FindingOrigin[] = rec.origins.map((o) => ({
        module: labels[o[0]],
        dependency: labels[o[1]],
        path: toStrings(o),
      }));
      origins.sort((a, b) => byModule(a.module, b.module) || cmpStr(a.dependency, b.dependency));
      const id = labels[rec.target];
      let list = attributions.get(id);
      if (!list) attributions.set(id, (list = []));
      list.push({
        module: root.module,
        context: root.context,
        relationship: path.length === 2 ? 'direct' : 'transitive',
        path,
        origins,
      });
    }
  }
  const paths = new Map<string, string[]>();
  for (const [id, list] of attributions) {
    list.sort((a, b) => byModule(a.module, b.module) || cmpStr(a.context, b.context));
    let best = list[0].path;
    for (const a of list) if (comparePaths(a.path, best) < 0) best = a.path;
    paths.set(id, best);
  }
  return { attributions, paths };
}

/** The whole attribution in the calling thread: small scans and tests. */
export function attributeInline(
  snapshot: Snapshot,
  built: BuiltGraph,
  packageIds: Iterable<string>,
  moduleRank: Map<string, number>,
  strategy?: ShardTask['strategy'],
): V2Attribution {
  const vulnerable = vulnerableMask(built, packageIds);
  const resolutions = Int32Array.from({ length: snapshot.roots.length }, (_, i) => i);
  const out = walkShard({
    graph: built.graph,
    resolutions,
    vulnerable,
    maxSegments: MAX_PATH_SEGMENTS,
    maxCharacters: MAX_PATH_CHARACTERS,
    strategy,
  });
  checkShardBudget([out]);
  return assembleV2(snapshot, built.labels, [out.data], moduleRank);
}
