// Which scan a scan is compared with when the caller does not name one (`baseline=auto`): the completed tracked scan
// of the same project and ecosystem made from the scan's base commit (`metadata.baseCommit`: the pull request's or
// merge queue's base); else the newest completed tracked scan of them that started before this one; else none. A
// tracked scan so compares with the tracked scan before it. Pure: the storage finds the candidates.

export interface BaselineCandidate {
  id: string;
  startedAt: Date;
}

/** Newest first: startedAt, then id (the scan list's order). */
const newer = (a: BaselineCandidate, b: BaselineCandidate): number =>
  b.startedAt.getTime() - a.startedAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

/**
 * The baseline of `head`: the newest of `byCommit` (tracked scans of the base commit; re-runs of one commit give
 * several), else the newest of `tracked` that started before the head (by startedAt, then id). The head itself is
 * never its own baseline.
 */
export function chooseBaseline<C extends BaselineCandidate>(
  head: BaselineCandidate,
  byCommit: readonly C[],
  tracked: readonly C[],
): C | null {
  const ofCommit = byCommit.filter((c) => c.id !== head.id).sort(newer);
  if (ofCommit.length) return ofCommit[0];
  const earlier = tracked.filter((c) => c.id !== head.id && newer(c, head) > 0).sort(newer);
  return earlier[0] ?? null;
}
