// Which of a snapshot's suppressions suppressed the findings a scan of it has: the service's own choice
// (src/domain/suppressions/index.ts), made again on the findings read back, with the same package glob matcher
// (src/shared/glob.ts). test/unit/client/suppressions.test.ts holds the choice to the domain's answers.
//
// A suppression suppresses a finding when its cve is any id of the finding's alias group (case-insensitively) and its
// package glob, if any, matches the package name (PyPI names PEP 503-normalised on both sides); of several, the
// first in snapshot order; one whose expires is before the processing day does not count.
import { globMatcher } from '../shared/glob';
import { pypiName } from '../shared/package-names';
import type { Ecosystem, SnapshotSuppression } from '../shared/types';
import type { ApiFinding } from './api/types';

// ---------------------------------------------------------------- the choice --

/** Whether the finding's suppression is a snapshot's (not an alert analysis's or a triage rule's). */
export const suppressedBySnapshot = (f: Pick<ApiFinding, 'suppressed' | 'suppressionSource'>) =>
  f.suppressed && (f.suppressionSource ?? 'snapshot') === 'snapshot';

/**
 * The suppressions of the list (as the snapshot sent them) that suppressed at least one of the findings, in list
 * order. `day`: the processing day (YYYY-MM-DD, UTC), before which an expires date makes a suppression void.
 */
export function suppressionsThatApplied(
  list: readonly SnapshotSuppression[],
  ecosystem: Ecosystem | string,
  findings: readonly Pick<ApiFinding, 'cve' | 'aliases' | 'package' | 'suppressed' | 'suppressionSource'>[],
  day: string,
): SnapshotSuppression[] {
  const python = ecosystem === 'python';
  const active = list
    .map((s, order) => ({ s, order }))
    .filter(({ s }) => s.expires === undefined || s.expires >= day)
    .map(({ s, order }) => {
      const glob = s.package === undefined ? null : globMatcher(python ? pypiName(s.package) : s.package);
      return {
        s,
        order,
        id: s.cve.toUpperCase(),
        test: (name: string) => glob === null || glob(python ? pypiName(name) : name),
      };
    });
  const byId = new Map<string, typeof active>();
  for (const a of active) {
    const same = byId.get(a.id);
    if (same) same.push(a);
    else byId.set(a.id, [a]);
  }
  const used = new Set<number>();
  for (const f of findings) {
    if (!suppressedBySnapshot(f)) continue;
    let first: (typeof active)[number] | undefined;
    for (const id of new Set([f.cve, ...(f.aliases ?? [])].map((x) => x.toUpperCase()))) {
      const hit = byId.get(id)?.find((a) => (first === undefined || a.order < first.order) && a.test(f.package));
      if (hit) first = hit;
    }
    if (first) used.add(first.order);
  }
  return list.filter((_, i) => used.has(i));
}
