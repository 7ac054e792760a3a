// Paged scans: the attribution is assembled at completion one vulnerable package at a time from
// the stored shard outputs, instead of every attribution at once as assembleV2 does, so that a graph of a million
// vertices never holds all of its attributions as strings together. The output is assembleV2's (tested against it):
// attributions in module order, then context; origins in module order, then dependency id; Finding.path the
// shortest attribution path, ties element by element.
//
// Shard output records (v2-walk.ts): r, T, pathLength, ...path, originCount, then per origin: length, ...path.
import type { FindingAttribution, FindingOrigin, Snapshot } from '../../shared/types';
import { cmpStr } from './paths';

export interface ShardIndex {
  outputs: Int32Array[];
  /** Label of a vulnerable package → where its records start: flat pairs [shard, offset, shard, offset, ...]. */
  records: Map<number, number[]>;
}

/** Finds every record of the outputs (one pass, no copies). */
export function indexShardOutputs(outputs: Int32Array[]): ShardIndex {
  const records = new Map<number, number[]>();
  outputs.forEach((data, s) => {
    let i = 0;
    while (i < data.length) {
      const at = i;
      const target = data[i + 1];
      i += 2;
      i += data[i] + 1; // the path
      const count = data[i++];
      for (let k = 0; k < count; k++) i += data[i] + 1;
      let list = records.get(target);
      if (!list) records.set(target, (list = []));
      list.push(s, at);
    }
  });
  return { outputs, records };
}

interface Record {
  resolution: number;
  path: Int32Array;
  origins: Int32Array[];
}

function recordAt(data: Int32Array, at: number): Record {
  let i = at;
  const resolution = data[i];
  i += 2;
  const len = data[i++];
  const path = data.subarray(i, i + len);
  i += len;
  const count = data[i++];
  const origins: Int32Array[] = [];
  for (let k = 0; k < count; k++) {
    const l = data[i++];
    origins.push(data.subarray(i, i + l));
    i += l;
  }
  return { resolution, path, origins };
}

/** Path order on label numbers: labels are numbered in string order, so this is comparePaths on the strings. */
function comparePathLabels(a: Int32Array, b: Int32Array): number {
  if (a.length !== b.length) return a.length - b.length;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}

/** Reads the path of the record at `at` without decoding its origins. */
function pathAt(data: Int32Array, at: number): Int32Array {
  const len = data[at + 2];
  return data.subarray(at + 3, at + 3 + len);
}

/** Finding.path of every vulnerable package the outputs attribute: the shortest of its attributions' paths. */
export function shortestPaths(index: ShardIndex, labels: string[]): Map<string, string[]> {
  const paths = new Map<string, string[]>();
  for (const [target, refs] of index.records) {
    let best = pathAt(index.outputs[refs[0]], refs[1]);
    for (let j = 2; j < refs.length; j += 2) {
      const p = pathAt(index.outputs[refs[j]], refs[j + 1]);
      if (comparePathLabels(p, best) < 0) best = p;
    }
    paths.set(labels[target], toStrings(best, labels));
  }
  return paths;
}

function toStrings(p: Int32Array, labels: string[]): string[] {
  const out: string[] = new Array(p.length);
  for (let i = 0; i < p.length; i++) out[i] = labels[p[i]];
  return out;
}

/** How many attributions a package has (one per resolution that reaches it). */
export function attributionCountOf(index: ShardIndex, target: number): number {
  return (index.records.get(target)?.length ?? 0) / 2;
}

/** The attributions of one vulnerable package (by label number), in the attributions' order. */
export function assemblePackage(
  roots: Snapshot['roots'],
  labels: string[],
  index: ShardIndex,
  target: number,
  moduleRank: Map<string, number>,
): FindingAttribution[] {
  const refs = index.records.get(target);
  if (!refs) return [];
  const rank = (m: string) => moduleRank.get(m) ?? Number.MAX_SAFE_INTEGER;
  const byModule = (a: string, b: string) => rank(a) - rank(b) || cmpStr(a, b);
  const list: FindingAttribution[] = [];
  for (let j = 0; j < refs.length; j += 2) {
    const rec = recordAt(index.outputs[refs[j]], refs[j + 1]);
    const root = roots[rec.resolution];
    const path = toStrings(rec.path, labels);
    const origins: FindingOrigin[] = rec.origins.map((o) => ({
      module: labels[o[0]],
      dependency: labels[o[1]],
      path: toStrings(o, labels),
    }));
    origins.sort((a, b) => byModule(a.module, b.module) || cmpStr(a.dependency, b.dependency));
    list.push({
      module: root.module,
      context: root.context,
      relationship: path.length === 2 ? 'direct' : 'transitive',
      path,
      origins,
    });
  }
  return list.sort((a, b) => byModule(a.module, b.module) || cmpStr(a.context, b.context));
}
