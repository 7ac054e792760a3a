// The effect of triage on a scan's findings, in the resolve step before the scan's counts (docs/triage.md): the
// alert's own analysis first (it suppresses the installed versions it covers, while it has not expired), else the
// oldest enforce rule in force whose conditions the finding meets. A suppressed finding gets the analysis's detail as
// its reason and `suppressionSource` "analysis" or "rule" (with `ruleId`); a snapshot suppression wins the source (the
// finding is suppressed already). Pure: the caller gives the findings (their alertId resolved), the pair's analyses
// and the organization's rules.
import type { Finding } from '../../shared/types';
import { isExpired, suppressesVersion, SUPPRESSING_STATES, type Analysis } from './analysis';
import { ruleFor, unitsOf, type CompiledRule } from './rules';

export interface TriageInputs {
  analyses: ReadonlyMap<string, Analysis>;
  /** Compiled, oldest first. */
  rules: readonly CompiledRule[];
  projectId: string;
  ecosystem: string;
  teamOf: (module: string) => string | null | undefined;
  /**
   * Alerts fixed by the latest tracked scan: a finding of one brings it back, so its `resolved` analysis no longer
   * holds (the move clears it when the alert reopens) and suppresses nothing.
   */
  fixed?: ReadonlySet<string>;
}

/** Suppresses the findings that analyses and rules cover; how many it suppressed. */
export function applyTriage(findings: Finding[], t: TriageInputs, now: Date): number {
  let changed = 0;
  for (const f of findings) {
    if (f.suppressed) continue;
    const own = f.alertId ? t.analyses.get(f.alertId) : undefined;
    const stale = own?.state === 'resolved' && t.fixed?.has(f.alertId!);
    if (own && !isExpired(own, now) && !stale) {
      // the alert's own analysis decides, whatever the rules say
      if (!suppressesVersion(own, f.installedVersion, now)) continue;
      f.suppressed = true;
      f.suppressionReason = own.detail;
      f.suppressionSource = 'analysis';
      changed++;
      continue;
    }
    if (!t.rules.length) continue;
    const rule = ruleFor(
      t.rules,
      {
        projectId: t.projectId,
        ecosystem: t.ecosystem,
        package: f.package,
        ids: f.aliases?.length ? [...f.aliases, f.cve] : [f.cve],
        severity: f.severity,
        units: unitsOf(f.attributions, t.teamOf),
      },
      now,
    );
    if (!rule || !SUPPRESSING_STATES.includes(rule.analysis.state)) continue;
    f.suppressed = true;
    f.suppressionReason = rule.analysis.detail;
    f.suppressionSource = 'rule';
    f.ruleId = rule.id;
    changed++;
  }
  return changed;
}

/** Where a finding's suppression comes from, as reads serve it (findings stored before sources: the snapshot). */
export const suppressionSourceOf = (f: Pick<Finding, 'suppressed' | 'suppressionSource'>) =>
  f.suppressionSource ?? (f.suppressed ? ('snapshot' as const) : null);
