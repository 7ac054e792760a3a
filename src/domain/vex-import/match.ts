// Which alerts of a project each VEX statement decides (docs/integrations.md#vex-import, "matching"):
// - advisory: any id the statement names equals (case aside) any id of the alert's alias group;
// - package: a purl of the statement names the alert's package in its ecosystem (./purl.ts); a purl version must be
//   one of the alert's installed versions and becomes the analysis' `versions` (a purl without one: every version);
// - an alert two statements decide takes the later one (by timestamp, then by place in the document); an earlier one
//   saying the same adds its versions, one saying otherwise is reported superseded;
// - an alert holding a person's analysis (one not written by a VEX import) keeps it unless `overwrite`.
// Every statement that decides nothing is reported with the reason, once per statement and alert.
import type { Analysis } from '../triage/analysis';
import type { Decision, VexStatement } from './statements';

/** What matching reads of an alert. */
export interface MatchAlert {
  id: string;
  ecosystem: string;
  /** The package name as its ecosystem compares names. */
  key: string;
  package: string;
  advisory: string;
  aliases: readonly string[];
  installedVersions: readonly string[];
  /** Its analysis now, if any (expired ones included: still a person's decision). */
  analysis: Pick<Analysis, 'importId' | 'updatedBy'> | null;
}

export type UnmatchedCode =
  | 'no_analysis'
  | 'missing_field'
  | 'invalid_field'
  | 'no_package'
  | 'no_alert'
  | 'version_not_installed'
  | 'person_analysis'
  | 'superseded';

export interface Unmatched {
  statement: number;
  vulnerability: string | null;
  /** The purl (or the alert's package) it is about, when one is. */
  package: string | null;
  code: UnmatchedCode;
  reason: string;
}

export interface Applied {
  alertId: string;
  statement: number;
  decision: Decision;
  /** The installed versions it covers; null: every version. */
  versions: string[] | null;
}

export interface MatchResult {
  applied: Applied[];
  unmatched: Unmatched[];
}

interface Claim {
  statement: VexStatement;
  alert: MatchAlert;
  versions: string[] | null;
}

const sameDecision = (a: Decision, b: Decision) =>
  a.state === b.state &&
  a.justification === b.justification &&
  a.detail === b.detail &&
  JSON.stringify([...a.response].sort()) === JSON.stringify([...b.response].sort());

/** Later statements first: by timestamp (none: earliest), then by place in the document. */
const later = (a: VexStatement, b: VexStatement) =>
  (b.timestamp ?? -Infinity) - (a.timestamp ?? -Infinity) || b.index - a.index;

export function matchStatements(
  statements: readonly VexStatement[],
  alerts: readonly MatchAlert[],
  o: { overwrite: boolean },
): MatchResult {
  const byId = new Map<string, MatchAlert[]>();
  for (const a of alerts)
    for (const id of new Set([a.advisory, ...a.aliases].map((x) => x.toUpperCase()))) {
      const list = byId.get(id);
      if (list) list.push(a);
      else byId.set(id, [a]);
    }
  const unmatched: Unmatched[] = [];
  const claims = new Map<string, Claim[]>();
  for (const s of statements) {
    const miss = (code: UnmatchedCode, reason: string, pkg: string | null = null) =>
      unmatched.push({ statement: s.index, vulnerability: s.vulnerability, package: pkg, code, reason });
    if (s.problem || !s.decision) {
      miss(s.problem?.code ?? 'no_analysis', s.problem?.reason ?? 'says no decision', s.packages[0]?.purl ?? null);
      continue;
    }
    const candidates = new Set<MatchAlert>();
    for (const id of s.ids) for (const a of byId.get(id.toUpperCase()) ?? []) candidates.add(a);
    if (!candidates.size) {
      miss(
        'no_alert',
        `no alert of this project is for ${s.ids.join(' or ') || 'an advisory it names'}`,
        s.packages[0]?.purl ?? null,
      );
      continue;
    }
    const found = new Map<MatchAlert, string[] | null>();
    const named: typeof s.packages = [];
    for (const p of s.packages) {
      for (const a of candidates) {
        if (a.key !== p.key || !p.ecosystems.includes(a.ecosystem)) continue;
        named.push(p);
        if (p.version !== null && !a.installedVersions.includes(p.version)) continue;
        const had = found.get(a);
        if (p.version === null || had === null) found.set(a, null);
        else found.set(a, [...(had ?? []), p.version]);
      }
    }
    // A package named whose versions none is installed (once every purl is read: the order of purls does not matter).
    const reported = new Set<string>();
    for (const p of named) {
      const alertsOf = [...candidates].filter((a) => a.key === p.key && p.ecosystems.includes(a.ecosystem));
      if (p.version === null || alertsOf.some((a) => found.has(a)) || reported.has(p.purl)) continue;
      reported.add(p.purl);
      miss(
        'version_not_installed',
        `version ${p.version} is not installed (the alert's installed versions: ${[...new Set(alertsOf.flatMap((a) => a.installedVersions))].join(', ')})`,
        p.purl,
      );
    }
    if (!found.size) {
      if (!unmatched.length || unmatched[unmatched.length - 1].statement !== s.index)
        miss(
          'no_alert',
          `no alert of this project is for ${s.vulnerability ?? 'the advisory'} in ${s.packages.map((p) => p.purl).join(', ')}`,
          s.packages[0]?.purl ?? null,
        );
      continue;
    }
    for (const [alert, versions] of found) {
      const list = claims.get(alert.id);
      const c = { statement: s, alert, versions: versions === null ? null : [...new Set(versions)].sort() };
      if (list) list.push(c);
      else claims.set(alert.id, [c]);
    }
  }

  const applied: Applied[] = [];
  for (const list of claims.values()) {
    list.sort((x, y) => later(x.statement, y.statement));
    const win = list[0];
    let versions = win.versions;
    for (const c of list.slice(1)) {
      if (sameDecision(c.statement.decision!, win.statement.decision!)) {
        versions = versions === null || c.versions === null ? null : [...new Set([...versions, ...c.versions])].sort();
        continue;
      }
      unmatched.push({
        statement: c.statement.index,
        vulnerability: c.statement.vulnerability,
        package: c.alert.package,
        code: 'superseded',
        reason: `alert ${c.alert.id} is decided by the later statement #${win.statement.index + 1}`,
      });
    }
    const a = win.alert;
    if (a.analysis && !a.analysis.importId && !o.overwrite) {
      for (const c of list)
        if (c === win || sameDecision(c.statement.decision!, win.statement.decision!))
          unmatched.push({
            statement: c.statement.index,
            vulnerability: c.statement.vulnerability,
            package: a.package,
            code: 'person_analysis',
            reason: `alert ${a.id} holds an analysis by ${a.analysis.updatedBy.name ?? a.analysis.updatedBy.id}: overwrite=true replaces it`,
          });
      continue;
    }
    applied.push({ alertId: a.id, statement: win.statement.index, decision: win.statement.decision!, versions });
  }
  applied.sort((x, y) => x.statement - y.statement || (x.alertId < y.alertId ? -1 : x.alertId > y.alertId ? 1 : 0));
  unmatched.sort((x, y) => x.statement - y.statement || x.code.localeCompare(y.code));
  return { applied, unmatched };
}
