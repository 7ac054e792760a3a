// The effect of triage on a scan's findings, in the resolve step before the scan's counts (docs/triage.md): a finding
// of an alert whose analysis suppresses its installed version at processing time is suppressed, with the analysis's
// detail as its reason and `suppressionSource: "analysis"`. A snapshot suppression wins the source (the finding is
// suppressed already). Pure: the caller gives the findings (their alertId resolved) and the pair's analyses.
import type { Finding } from '../../shared/types';
import { suppressesVersion, type Analysis } from './analysis';

/** Suppresses the findings that analyses cover; how many it suppressed. */
export function applyAnalyses(findings: Finding[], analyses: ReadonlyMap<string, Analysis>, now: Date): number {
  let changed = 0;
  for (const f of findings) {
    if (f.suppressed || !f.alertId) continue;
    const a = analyses.get(f.alertId);
    if (!a || !suppressesVersion(a, f.installedVersion, now)) continue;
    f.suppressed = true;
    f.suppressionReason = a.detail;
    f.suppressionSource = 'analysis';
    changed++;
  }
  return changed;
}

/** Where a finding's suppression comes from, as reads serve it (findings stored before sources: the snapshot). */
export const suppressionSourceOf = (f: Pick<Finding, 'suppressed' | 'suppressionSource'>) =>
  f.suppressionSource ?? (f.suppressed ? ('snapshot' as const) : null);
