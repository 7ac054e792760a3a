// Suppressions sent with the snapshot: one matches a finding when its `cve` is any id of the
// advisory's alias group and its optional `package` glob matches the package name; expired ones are ignored.
import type { Ecosystem, SnapshotSuppression } from '../../shared/types';
import { globMatcher } from '../../shared/glob';
import { pypiName } from '../../shared/package-names';

// The package glob (src/shared/glob.ts: the CI client matches with it too).
export { globMatcher };

/** PEP 503 normalisation, as matching and the inventory compare PyPI names (src/shared/package-names.ts). */
export const pep503 = pypiName;

// ---------------------------------------------------------------- suppressions --

export interface ActiveSuppression {
  ids: string;
  reason: string;
  /** Position among the active suppressions: snapshot order. */
  order: number;
  test: (packageName: string) => boolean;
}

/** The suppressions in force, in snapshot order, and the same indexed by upper-cased advisory id. */
export interface SuppressionIndex {
  list: readonly ActiveSuppression[];
  byId: ReadonlyMap<string, readonly ActiveSuppression[]>;
}

/** The suppressions in force on the processing day (YYYY-MM-DD, UTC). */
export function activeSuppressions(
  list: SnapshotSuppression[] | undefined,
  ecosystem: Ecosystem,
  processingDay: string,
): SuppressionIndex {
  const python = ecosystem === 'python';
  const active = (list ?? [])
    .filter((s) => !s.expires || s.expires >= processingDay)
    .map((s, order): ActiveSuppression => {
      const glob = s.package === undefined ? null : globMatcher(python ? pep503(s.package) : s.package);
      return {
        ids: s.cve,
        reason: s.reason,
        order,
        test: (name: string) => glob === null || glob(python ? pep503(name) : name),
      };
    });
  // Advisory ids are compared case-insensitively: GHSA ids are written both ways in the wild.
  const byId = new Map<string, ActiveSuppression[]>();
  for (const s of active) {
    const key = s.ids.toUpperCase();
    const same = byId.get(key);
    if (same) same.push(s);
    else byId.set(key, [s]);
  }
  return { list: active, byId };
}

/** The first suppression (in snapshot order) whose id is one of the group's and whose glob matches, or null. */
export function findSuppression(
  index: SuppressionIndex,
  groupIds: readonly string[],
  packageName: string,
): ActiveSuppression | null {
  let best: ActiveSuppression | null = null;
  for (const key of new Set(groupIds.map((id) => id.toUpperCase()))) {
    for (const s of index.byId.get(key) ?? []) {
      if (best !== null && s.order > best.order) break; // an earlier one already matched under another id
      if (s.test(packageName)) {
        best = s;
        break;
      }
    }
  }
  return best;
}
