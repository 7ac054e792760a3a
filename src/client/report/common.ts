// What the three report formats read the same way: severity order, the gate's count, the modules (and teams) a
// finding is attributed to in the chosen view, the aliases worth showing next to an advisory id, a shortened path,
// where a finding's package sits in its lockfile, and its KEV entry and EPSS score.
import { SEVERITIES, type EpssEntry, type KevEntry, type Severity } from '../../shared/types';
import type { ApiFinding } from '../api/types';
import type { PackageLocation } from '../producers/types';
import type { CompareResult } from '../../shared/compare';
import type { FailOn, ReportInput, ScanResult, View } from './types';

export const severityIndex = (s: Severity): number => SEVERITIES.indexOf(s);

/** Unsuppressed findings at or above the gate, from the scans' own counts (the same reading as the exit code). */
export function countAtOrAbove(results: ScanResult[], failOn: FailOn): number {
  if (failOn === 'none') return 0;
  const upTo = SEVERITIES.slice(0, severityIndex(failOn) + 1);
  return results.reduce((n, r) => n + upTo.reduce((m, s) => m + (r.scan.findings?.[s] ?? 0), 0), 0);
}

export interface ModuleRef {
  module: string;
  /** The module's team (scan.modules[].teamName); null when it has none ("unassigned"); undefined when the scan
   *  carries no module metadata (multipart scans serve it elsewhere), so the team is unknown rather than absent. */
  team: string | null | undefined;
}

const teamsByScan = new WeakMap<ScanResult['scan'], Map<string, string | null>>();
function teams(result: ScanResult): Map<string, string | null> {
  let map = teamsByScan.get(result.scan);
  if (!map) teamsByScan.set(result.scan, (map = new Map(result.scan.modules.map((m) => [m.path, m.teamName ?? null]))));
  return map;
}

/**
 * The modules of a finding in the view: "introduced" → the modules declaring an introducing dependency
 * (attributions[].origins[].module), "affected" → the consuming modules (attributions[].module). Empty for v1
 * findings, which carry no attributions. First-seen order, which follows the API's module-graph order.
 */
export function modulesOf(result: ScanResult, finding: ApiFinding, view: View): ModuleRef[] {
  const names: string[] = [];
  for (const a of finding.attributions) {
    if (view === 'affected') names.push(a.module);
    else for (const o of a.origins) names.push(o.module);
  }
  const known = teams(result);
  return [...new Set(names)].map((module) => ({
    module,
    team: known.size === 0 ? undefined : (known.get(module) ?? null),
  }));
}

/** "web (@acme/web)", "api (unassigned)", or the bare module when the team is unknown. */
export const moduleLabel = (m: ModuleRef): string =>
  m.team === undefined ? m.module : `${m.module} (${m.team ?? 'unassigned'})`;

/** Whether a scan attributes findings to modules at all (v2 inline scans); v1 scans never do. */
export const hasAttributions = (result: ScanResult): boolean => result.findings.some((f) => f.attributions.length > 0);

/**
 * The aliases worth naming beside the advisory id: its CVE(s) when the id is not a CVE (a GHSA or PYSEC id),
 * else its GHSA id(s); other alias kinds only when there is neither. At most `max`.
 */
export function notableAliases(finding: ApiFinding, max = 2): string[] {
  const others = [...new Set(finding.aliases ?? [])].filter((a) => a !== finding.cve);
  const want = finding.cve.startsWith('CVE-') ? 'GHSA-' : 'CVE-';
  const preferred = others.filter((a) => a.startsWith(want));
  return (preferred.length > 0 ? preferred : others).slice(0, max);
}

export const PATH_SEPARATOR = ' › ';

/**
 * A dependency chain on one line, `a › b › c`. Past `maxChars` the middle gives way first ("a › … 3 more › y › z"):
 * the head says where the chain starts (manifest or module), the tail what pulls the package in.
 */
export function shortPath(path: string[], maxChars = 100): string {
  const full = path.join(PATH_SEPARATOR);
  if (path.length <= 3 || [...full].length <= maxChars) return full;
  const head = path.slice(0, 1);
  let tail = path.slice(1);
  const render = () => [...head, `… ${path.length - head.length - tail.length} more`, ...tail].join(PATH_SEPARATOR);
  // Keep at least the package and what introduced it.
  while (tail.length > 2 && [...render()].length > maxChars) tail = tail.slice(1);
  return render();
}

/** Cuts text to at most `max` characters (code points), marking the cut with an ellipsis. */
export function truncate(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : chars.slice(0, max - 1).join('') + '…';
}

/** PEP 503's normalisation, so "PyYAML" finds the lockfile's "pyyaml" entry. */
const normalize = (id: string) => id.toLowerCase().replace(/[-_.]+(?=[^@]*@)/g, '-');

/**
 * Where a finding's package sits: its lockfile entry as the producer recorded it, by `name@version`, else by the
 * path's last element (the snapshot's node id), else by the PEP 503 form of either; null when none matches.
 */
export function locator(result: ScanResult): (finding: ApiFinding) => PackageLocation | null {
  let normalized: Map<string, PackageLocation> | undefined;
  return (finding) => {
    const ids = [`${finding.package}@${finding.installedVersion}`, finding.path[finding.path.length - 1]].filter(
      (x): x is string => !!x,
    );
    for (const id of ids) if (Object.hasOwn(result.locations, id)) return result.locations[id];
    if (!normalized) {
      normalized = new Map();
      for (const [id, loc] of Object.entries(result.locations))
        if (!normalized.has(normalize(id))) normalized.set(normalize(id), loc);
    }
    for (const id of ids) {
      const loc = normalized.get(normalize(id));
      if (loc) return loc;
    }
    return null;
  };
}

/** How a finding stands against the scan's baseline (GET /v1/scans/{id}/compare): undefined without a comparison. */
export type Change = 'new' | 'unchanged' | 'disclosed';

const changesByResult = new WeakMap<ScanResult, Map<string, Change>>();

/** The change of each finding of a result, by finding id (empty when the run did not compare). */
export function changesOf(result: ScanResult): Map<string, Change> {
  let map = changesByResult.get(result);
  if (!map) {
    map = new Map();
    const c = result.compare;
    if (c) {
      for (const f of c.findings.added) map.set(f.id, 'new');
      for (const f of c.findings.unchanged) map.set(f.id, 'unchanged');
      for (const f of c.findings.disclosed) map.set(f.id, 'disclosed');
    }
    changesByResult.set(result, map);
  }
  return map;
}

/** Added unsuppressed findings at or above the gate (a comparison's counts). */
export function addedAtOrAbove(compare: CompareResult, failOn: FailOn): number {
  if (failOn === 'none') return 0;
  const upTo = SEVERITIES.slice(0, severityIndex(failOn) + 1);
  return upTo.reduce((n, s) => n + compare.counts.added[s], 0);
}

/**
 * What the gate counted: with `--gate new`, the added findings of the results compared with a baseline and every
 * finding of the others (no baseline under --baseline-missing all); with `all`, every finding.
 */
export function gatedCount(input: ReportInput): number {
  if (input.gate === 'all') return countAtOrAbove(input.results, input.failOn);
  return input.results.reduce(
    (n, r) =>
      n +
      (r.compare && !r.compare.baselineMissing
        ? addedAtOrAbove(r.compare, input.failOn)
        : countAtOrAbove([r], input.failOn)),
    0,
  );
}

// ------------------------------------------------------------------------------------------------ KEV, EPSS --

const findingsById = new WeakMap<ScanResult, Map<string, ApiFinding>>();

/**
 * A finding's CISA KEV entry: its own `kev`, else (a comparison's finding, from a service that puts the entry only on
 * the findings list) that of the scan's finding of the same id; null when neither has one (an older service omits
 * the field: not listed, as far as the client can tell).
 */
export function kevOf(result: ScanResult, finding: Pick<ApiFinding, 'id' | 'kev'>): KevEntry | null {
  if (finding.kev) return finding.kev;
  let byId = findingsById.get(result);
  if (!byId) findingsById.set(result, (byId = new Map(result.findings.map((f) => [f.id, f]))));
  return byId.get(finding.id)?.kev ?? null;
}

/** A finding's EPSS entry; null when the service gives none (no score, or a service without the field). */
export const epssOf = (finding: Pick<ApiFinding, 'epss'>): EpssEntry | null => finding.epss ?? null;

/**
 * An EPSS score (a probability, 0..1) as a percentage: one decimal from 1 % up ("94.3%", "1.0%"), two below
 * ("0.04%"), "<0.01%" for a score above 0 that two decimals would show as 0.
 */
export function epssPercent(score: number): string {
  const p = score * 100;
  if (p >= 1) return `${p.toFixed(1)}%`;
  if (p > 0 && p < 0.005) return '<0.01%';
  return `${p.toFixed(2)}%`;
}

/** Whether the service serves KEV and EPSS on the result's findings (the fields present, null or not). */
export const servesIntel = (result: ScanResult): boolean =>
  result.findings.some((f) => f.kev !== undefined || f.epss !== undefined);

/** The unsuppressed findings of a scan (every page the run read) listed in KEV. */
export const kevCount = (result: ScanResult): number =>
  result.findings.filter((f) => !f.suppressed && kevOf(result, f) !== null).length;

/** The added unsuppressed findings of a result's comparison listed in KEV (0 without a comparison). */
export const addedKevCount = (result: ScanResult): number =>
  (result.compare?.findings.added ?? []).filter((f) => !f.suppressed && kevOf(result, f) !== null).length;

/**
 * The KEV findings the gate reads (`--fail-on-kev`), as gatedCount reads severities: with `--gate new` the added ones
 * of the results compared with a baseline and every one of the others; with `all` every one.
 */
export function gatedKevCount(input: ReportInput): number {
  return input.results.reduce(
    (n, r) => n + (input.gate === 'new' && r.compare && !r.compare.baselineMissing ? addedKevCount(r) : kevCount(r)),
    0,
  );
}
