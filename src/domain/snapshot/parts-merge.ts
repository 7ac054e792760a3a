// A multipart upload as one snapshot: the create body's fields and the parts' items concatenated in part order (so
// that the merged document is the snapshot the client split, item for item). The same function serves completion,
// which checks the whole graph with the single upload's own cross-reference and hop checks, and the worker, which
// scans it. Errors of the merged document are told in the parts' terms: `part 3: /roots/0/...`.
import { ApiError, tooLarge } from '../errors';
import type { Snapshot, SnapshotStats } from '../../shared/types';
import { crossReferenceV2 } from './cross-reference';
import { checkHopsV2 } from './graph-checks';
import {
  COUNTED,
  UPLOAD_BUDGETS,
  budgetError,
  countPart,
  overBudget,
  zeroCounts,
  type PartBody,
  type UploadHeader,
} from './parts';

type Kind = 'modules' | 'nodes' | 'roots';

/** Where the items of each part start in the merged arrays: starts[kind][p] for part p + 1 (parts are 1-based). */
export class PartOrigin {
  constructor(private readonly starts: Record<Kind, number[]>) {}

  /** The part (1-based) and the index within it of merged item `i` of `kind`. */
  locate(kind: Kind, i: number): { part: number; index: number } {
    const s = this.starts[kind];
    // The last part starting at or before i (a part without items of this kind shares its start with the next one,
    // which is then the one holding item i).
    let lo = 0;
    let hi = s.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (s[mid] <= i) lo = mid;
      else hi = mid - 1;
    }
    return { part: lo + 1, index: i - s[lo] };
  }
}

const appendAll = <T>(into: T[], items: readonly T[] | undefined) => {
  if (items) for (let i = 0; i < items.length; i++) into.push(items[i]); // never push(...items): the stack is small
};

/**
 * One snapshot from the create body and the parts (in part order, parts[0] is part 1). Items are not copied: the
 * merged arrays hold the parts' own objects.
 */
export function mergeUpload(
  header: UploadHeader,
  parts: readonly PartBody[],
): { snapshot: Snapshot; origin: PartOrigin } {
  const modules: NonNullable<Snapshot['modules']> = [];
  const nodes: Snapshot['nodes'] = [];
  const roots: Snapshot['roots'] = [];
  const starts: Record<Kind, number[]> = { modules: [], nodes: [], roots: [] };
  for (const p of parts) {
    starts.modules.push(modules.length);
    starts.nodes.push(nodes.length);
    starts.roots.push(roots.length);
    appendAll(modules, p.modules);
    appendAll(nodes, p.nodes);
    appendAll(roots, p.roots);
  }
  const snapshot: Snapshot = {
    schemaVersion: 2,
    project: header.project,
    ecosystem: header.ecosystem,
    modules,
    roots,
    nodes,
  };
  if (header.manifests !== undefined) snapshot.manifests = header.manifests;
  if (header.suppressions !== undefined) snapshot.suppressions = header.suppressions;
  if (header.metadata !== undefined) snapshot.metadata = header.metadata;
  return { snapshot, origin: new PartOrigin(starts) };
}

const POINTER = /^\/(modules|nodes|roots)\/(\d+)(.*)$/;
const ALSO = /\(also \/(modules|nodes|roots)\/(\d+)\)$/;

/**
 * An error of the merged document, told in the parts' terms: its pointer (and the "also" of a duplicate) become
 * `part P: /kind/j...`. Errors whose pointer names no item are returned as they are.
 */
export function inParts(err: ApiError, origin: PartOrigin): ApiError {
  const cut = err.message.indexOf(': ');
  if (cut < 0) return err;
  const m = POINTER.exec(err.message.slice(0, cut));
  if (!m) return err;
  const at = origin.locate(m[1] as Kind, Number(m[2]));
  // Only the trailing "(also ...)" is the checker's: a quoted value earlier in the message may hold the same text.
  const what = err.message.slice(cut + 2).replace(ALSO, (_all, kind: Kind, j: string) => {
    const other = origin.locate(kind, Number(j));
    return `(also part ${other.part}: /${kind}/${other.index})`;
  });
  return new ApiError(err.status, err.code, `part ${at.part}: /${m[1]}/${at.index}${m[3]}: ${what}`);
}

/**
 * Completion's checks of the whole graph, in the single upload's order: the counted budgets (413), every
 * cross-reference rule, duplicates across parts included (422), then shortest hops (413). There is no
 * attribution-work limit for a multipart upload (paths are derived on read). Returns the merged snapshot and its
 * counted sizes.
 */
export function validateUpload(
  header: UploadHeader,
  parts: readonly PartBody[],
): { snapshot: Snapshot; stats: SnapshotStats } {
  // The ledger kept every part within the budgets as it arrived; counted again, whole, all the same.
  const totals = zeroCounts();
  parts.forEach((p, i) => {
    const counts = countPart(p);
    const over = overBudget(totals, counts);
    if (over) throw budgetError(i + 1, over, true);
    for (const k of COUNTED) totals[k] += counts[k];
  });
  if (parts.length > UPLOAD_BUDGETS.parts)
    throw tooLarge('/parts', `${parts.length} parts, over the budget of ${UPLOAD_BUDGETS.parts}`);
  const { snapshot, origin } = mergeUpload(header, parts);
  try {
    checkHopsV2(crossReferenceV2(snapshot));
  } catch (err) {
    throw err instanceof ApiError ? inParts(err, origin) : err;
  }
  return {
    snapshot,
    stats: {
      nodes: totals.nodes,
      roots: totals.roots,
      modules: totals.modules,
      vertices: totals.vertices,
      edges: totals.edges,
    },
  };
}

/**
 * The worker's deep check of a multipart scan's merged snapshot (the single upload's is validateSnapshot, whose
 * single-document limits a multipart snapshot may exceed): what completion checked, the budgets, every
 * cross-reference rule and the hops; the parts' structure was checked as each arrived. Returns the counted sizes.
 */
export function checkPagedSnapshot(snapshot: Snapshot): SnapshotStats {
  const counts = countPart(snapshot);
  const over = overBudget(zeroCounts(), counts);
  if (over)
    throw tooLarge(
      over.budget === 'vertices' || over.budget === 'edges' ? '/roots' : `/${over.budget}`,
      `${over.total} ${over.budget}, over the upload's budget of ${over.limit}`,
    );
  checkHopsV2(crossReferenceV2(snapshot));
  return {
    nodes: counts.nodes,
    roots: counts.roots,
    modules: counts.modules,
    vertices: counts.vertices,
    edges: counts.edges,
  };
}
