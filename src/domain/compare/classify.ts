// Compare (the PR gate's core): a completed scan's findings classified against a baseline scan of the same project
// and ecosystem, from the two scans' stored findings and packages alone (no re-match):
//   added      its package@version is not among the baseline's packages, and the baseline has no finding of that
//              package sharing an id of its alias group: the change brought it;
//   unchanged  the baseline has a finding of that package sharing an alias (a bump that stays vulnerable shows
//              `versionsChanged`);
//   disclosed  its package@version was in the baseline already, which had no finding of it for the advisory: the
//              advisory became known since (not the change's doing);
//   removed    a baseline finding with no head finding of that package sharing an alias.
// Package names compare as the ecosystem compares them (npm scopes and case, PyPI normalisation, Maven coordinates).
// Pure and deterministic: lists in severity then id order, dependency changes in name then version order.
import { normalizedName } from '../../shared/package-names';
import { severityRank, type Finding, type SeverityCounts, type SnapshotSuppression } from '../../shared/types';
import type { CompareClass, CompareDependency, CompareDependencyChange, CompareFinding } from '../../shared/compare';
import { compareCodePoints } from '../../shared/inventory-ids';

/** A stored finding (paged scans' carry their attribution count, their attributions being stored apart). */
export type ComparedFinding = Finding & { attributionCount?: number };

/** A scan's packages: aligned lists of names as sent, versions, and names as the ecosystem compares them. */
export interface SidePackages {
  names: string[];
  versions: string[];
  keys: string[];
}

/** Packages from name@version pairs, their keys computed (tests, and scans from before keys were stored). */
export function sidePackages(ecosystem: string, list: Array<{ name: string; version: string }>): SidePackages {
  return {
    names: list.map((p) => p.name),
    versions: list.map((p) => p.version),
    keys: list.map((p) => normalizedName(ecosystem, p.name)),
  };
}

export interface CompareSide {
  findings: ComparedFinding[];
  packages: SidePackages;
  suppressions: SnapshotSuppression[];
  /** A module's team label (v2 module metadata); undefined or null: none. */
  teamOf: (module: string) => string | null | undefined;
  /**
   * A finding's introducing modules when its attributions are stored apart (paged scans: from their scope index);
   * absent: read from the finding's attributions.
   */
  introducedOf?: (f: ComparedFinding) => string[] | undefined;
}

export interface Classified {
  findings: Record<CompareClass, ClassifiedFinding[]>;
  counts: Record<CompareClass, SeverityCounts>;
  suppressionsAdded: SnapshotSuppression[];
  dependencies: { added: CompareDependency[]; removed: CompareDependency[]; changed: CompareDependencyChange[] };
}

const CLASSES: readonly CompareClass[] = ['added', 'unchanged', 'disclosed', 'removed'];
const NO_PACKAGES: SidePackages = { names: [], versions: [], keys: [] };
const zeroCounts = (): SeverityCounts => ({ critical: 0, high: 0, medium: 0, low: 0 });

const idsOf = (f: Finding): string[] =>
  f.aliases?.length ? (f.aliases.includes(f.cve) ? f.aliases : [...f.aliases, f.cve]) : [f.cve];

const sortedUnique = (xs: string[]): string[] =>
  xs.length === 0 ? [] : xs.length === 1 ? [xs[0]] : [...new Set(xs)].sort(compareCodePoints);

/** Introducing modules of a finding (v2): its attributions' origins' modules, or the attributed module itself. */
function introducing(f: Finding): string[] {
  const out: string[] = [];
  for (const a of f.attributions ?? []) {
    if (a.origins?.length) for (const o of a.origins) out.push(o.module);
    else out.push(a.module);
  }
  return sortedUnique(out);
}

/**
 * A classified finding: the stored finding (presented by the HTTP layer in the findings list's light shape), its
 * introducing modules and their teams, and for an unchanged one the baseline's versions.
 */
export interface ClassifiedFinding {
  finding: ComparedFinding;
  modules: string[];
  teams: string[];
  baselineVersions?: string[];
  versionsChanged?: boolean;
}

function classified(f: ComparedFinding, side: CompareSide): ClassifiedFinding {
  const modules = side.introducedOf?.(f) ?? introducing(f);
  const teams = sortedUnique(modules.map(side.teamOf).filter((t): t is string => typeof t === 'string' && t !== ''));
  return { finding: f, modules, teams };
}

/** Severity (critical first), then id: the findings list's order. */
export function bySeverityThenId(a: { severity: string; id: string }, b: { severity: string; id: string }): number {
  return severityRank(a.severity as never) - severityRank(b.severity as never) || compareCodePoints(a.id, b.id);
}

/** The findings of one side by package (as the ecosystem compares names), each with its alias ids. */
type FindingsByPackage = Map<string, Array<{ f: ComparedFinding; ids: string[] }>>;
// Remembered per findings array (a scan's, kept by the caller while it is compared): a baseline compared with many
// heads is grouped once.
const findingsByPackage = new WeakMap<ComparedFinding[], FindingsByPackage>();

function byPackage(ecosystem: string, findings: ComparedFinding[]): FindingsByPackage {
  const known = findingsByPackage.get(findings);
  if (known) return known;
  const out: FindingsByPackage = new Map();
  findingsByPackage.set(findings, out);
  for (const f of findings) {
    const key = normalizedName(ecosystem, f.package);
    let list = out.get(key);
    if (!list) out.set(key, (list = []));
    list.push({ f, ids: idsOf(f) });
  }
  return out;
}

// Alias groups are a few ids: arrays beat Sets here.
const sharesAlias = (ids: string[], other: string[]): boolean => ids.some((id) => other.includes(id));

const suppressionKey = (s: SnapshotSuppression): string =>
  JSON.stringify([s.cve, s.package ?? null, s.expires ?? null]);

/**
 * Suppressions in the head's snapshot that the baseline's did not carry: the same advisory id, package and expiry
 * (a changed reason alone adds nothing; a later expiry silences for longer, so it is an added suppression).
 */
export function suppressionsAdded(head: SnapshotSuppression[], baseline: SnapshotSuppression[]): SnapshotSuppression[] {
  const had = new Set(baseline.map(suppressionKey));
  const seen = new Set<string>();
  const out: SnapshotSuppression[] = [];
  for (const s of head) {
    const k = suppressionKey(s);
    if (had.has(k) || seen.has(k)) continue;
    seen.add(k);
    out.push(s);
  }
  return out.sort(
    (a, b) =>
      compareCodePoints(a.cve, b.cve) ||
      compareCodePoints(a.package ?? '', b.package ?? '') ||
      compareCodePoints(a.expires ?? '', b.expires ?? ''),
  );
}

/**
 * A side's packages by name as the ecosystem compares them: the position of each name's first package, and all the
 * positions of the few names with several. A package almost always has one version, so no per-name object is built
 * (10,000 of them cost more than the whole walk); remembered per side, which the caller keeps while it is compared.
 */
interface ByName {
  packages: SidePackages;
  first: Map<string, number>;
  several: Map<string, number[]>;
}

const byNames = new WeakMap<SidePackages, ByName>();

function byName(packages: SidePackages): ByName {
  let out = byNames.get(packages);
  if (out) return out;
  const first = new Map<string, number>();
  const several = new Map<string, number[]>();
  const { keys } = packages;
  for (let i = 0; i < keys.length; i++) {
    const at = first.get(keys[i]);
    if (at === undefined) first.set(keys[i], i);
    else {
      const list = several.get(keys[i]);
      if (list) list.push(i);
      else several.set(keys[i], [at, i]);
    }
  }
  byNames.set(packages, (out = { packages, first, several }));
  return out;
}

/** The name to show for a compared name (the first in code-point order) and its versions, sorted and distinct. */
function entryOf(side: ByName, key: string, at: number): { name: string; versions: string[] } {
  const { names, versions } = side.packages;
  const all = side.several.get(key);
  if (!all) return { name: names[at], versions: [versions[at]] };
  let name = names[at];
  for (const i of all) if (compareCodePoints(names[i], name) < 0) name = names[i];
  return { name, versions: sortedUnique(all.map((i) => versions[i])) };
}

/** Whether a side has this version of a compared name. */
function hasVersion(side: ByName, key: string, version: string): boolean {
  const at = side.first.get(key);
  if (at === undefined) return false;
  const all = side.several.get(key);
  return all ? all.some((i) => side.packages.versions[i] === version) : side.packages.versions[at] === version;
}

/** Packages added and removed (each version), and packages whose set of versions changed. */
export function dependencyChanges(head: SidePackages, baseline: SidePackages): Classified['dependencies'] {
  return changesOf(byName(head), byName(baseline));
}

function changesOf(h: ByName, b: ByName): Classified['dependencies'] {
  const added: CompareDependency[] = [];
  const removed: CompareDependency[] = [];
  const changed: CompareDependencyChange[] = [];
  for (const [key, hi] of h.first) {
    const bi = b.first.get(key);
    if (bi === undefined) {
      const now = entryOf(h, key, hi);
      for (const version of now.versions) added.push({ name: now.name, version });
    } else if (!h.several.has(key) && !b.several.has(key) && h.packages.versions[hi] === b.packages.versions[bi]) {
      continue; // one version on each side, the same: the common case, nothing built
    } else {
      const now = entryOf(h, key, hi);
      const was = entryOf(b, key, bi);
      if (!sameVersions(now.versions, was.versions))
        changed.push({ name: now.name, from: was.versions, to: now.versions });
    }
  }
  for (const [key, bi] of b.first) {
    if (h.first.has(key)) continue;
    const was = entryOf(b, key, bi);
    for (const version of was.versions) removed.push({ name: was.name, version });
  }
  const byNameVersion = (x: CompareDependency, y: CompareDependency) =>
    compareCodePoints(x.name, y.name) || compareCodePoints(x.version, y.version);
  return {
    added: added.sort(byNameVersion),
    removed: removed.sort(byNameVersion),
    changed: changed.sort((x, y) => compareCodePoints(x.name, y.name)),
  };
}

const sameVersions = (a: string[], b: string[]) => a.length === b.length && a.every((v, i) => v === b[i]);

/** The comparison of a head scan with its baseline; with no baseline, every head finding is `added`. */
export function classify(ecosystem: string, head: CompareSide, baseline: CompareSide | null): Classified {
  const findings: Classified['findings'] = { added: [], unchanged: [], disclosed: [], removed: [] };
  const counts: Classified['counts'] = {
    added: zeroCounts(),
    unchanged: zeroCounts(),
    disclosed: zeroCounts(),
    removed: zeroCounts(),
  };
  const put = (cls: CompareClass, c: ClassifiedFinding) => {
    findings[cls].push(c);
    if (!c.finding.suppressed) counts[cls][c.finding.severity]++;
  };
  // The packages of each side by compared name: the disclosed test reads the baseline's, the changes both.
  const headPackages = byName(head.packages);
  const baselinePackages = byName(baseline?.packages ?? NO_PACKAGES);
  if (!baseline) {
    for (const f of head.findings) put('added', classified(f, head));
  } else {
    const before = byPackage(ecosystem, baseline.findings);
    const after = byPackage(ecosystem, head.findings);
    for (const f of head.findings) {
      const key = normalizedName(ecosystem, f.package);
      const ids = idsOf(f);
      const matching = (before.get(key) ?? []).filter((b) => sharesAlias(ids, b.ids));
      const out = classified(f, head);
      if (matching.length) {
        const versions = sortedUnique(matching.map((m) => m.f.installedVersion));
        put('unchanged', {
          ...out,
          baselineVersions: versions,
          versionsChanged: !versions.includes(f.installedVersion),
        });
      } else if (hasVersion(baselinePackages, key, f.installedVersion)) put('disclosed', out);
      else put('added', out);
    }
    for (const b of baseline.findings) {
      const ids = idsOf(b);
      const still = (after.get(normalizedName(ecosystem, b.package)) ?? []).some((h) => sharesAlias(ids, h.ids));
      if (!still) put('removed', classified(b, baseline));
    }
  }
  for (const cls of CLASSES) findings[cls].sort((a, b) => bySeverityThenId(a.finding, b.finding));
  return {
    findings,
    counts,
    suppressionsAdded: suppressionsAdded(head.suppressions, baseline?.suppressions ?? []),
    // With no baseline, the head alone: every package is added, as every finding is.
    dependencies: changesOf(headPackages, baselinePackages),
  };
}
