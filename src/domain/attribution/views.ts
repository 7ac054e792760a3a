// The module/team views of attributions (docs/scanning.md, "Paths and attribution"), shared by
// the findings list, the modules and attributions reads and the paged completion. Pure.
//   affected view: an attribution belongs to its consuming module; introduced view: to each of its origins' modules.
//   module=M selects M; team=T the modules whose teamName is T; both: M, and only when M's teamName is T.
import { sha256Hex } from '../ids';
import type { FindingAttribution, FindingOrigin, Severity } from '../../shared/types';

export type View = 'affected' | 'introduced';

export interface Scope {
  view: View;
  module?: string;
  team?: string;
}

/** teamName of a module path (null or undefined: unassigned, or not a module of the scan). */
export type TeamOf = (module: string) => string | null | undefined;

export const hasScope = (s: Scope): boolean => s.module !== undefined || s.team !== undefined;

export function moduleSelected(m: string, scope: Scope, teamOf: TeamOf): boolean {
  if (scope.module !== undefined && m !== scope.module) return false;
  if (scope.team !== undefined && (teamOf(m) ?? null) !== scope.team) return false;
  return true;
}

type Attributed = { module: string; origins: ReadonlyArray<{ module: string }> };

/** Whether an attribution is in the scope (every attribution is when no module or team is asked for). */
export function attributionInScope(a: Attributed, scope: Scope, teamOf: TeamOf): boolean {
  if (!hasScope(scope)) return true;
  if (scope.view === 'affected') return moduleSelected(a.module, scope, teamOf);
  return a.origins.some((o) => moduleSelected(o.module, scope, teamOf));
}

/**
 * att_ + a hash of (package id, module, context): one attribution per resolution root and vulnerable package, so the
 * same graph gives the same ids whether it was uploaded inline or in parts, and whatever scan it is in.
 */
export function attributionId(packageId: string, module: string, context: string): string {
  return 'att_' + sha256Hex(`${packageId}\0${module}\0${context}`).slice(0, 24);
}

/** The package id a finding's attributions are keyed by (name@version, as v2 node ids are). */
export const packageIdOf = (f: { package: string; installedVersion: string }): string =>
  `${f.package}@${f.installedVersion}`;

/** An item of GET .../findings/{findingId}/attributions: the attribution without its paths. */
export interface AttributionListItem {
  id: string;
  module: string;
  context: string;
  relationship: 'direct' | 'transitive';
  origins: Array<{ module: string; dependency: string }>;
}

/** GET .../attributions/{attributionId}/path: exactly the paths the inline attribution holds. */
export interface AttributionPathItem {
  path: string[];
  origins: FindingOrigin[];
}

export function listItem(packageId: string, a: FindingAttribution): AttributionListItem {
  return {
    id: attributionId(packageId, a.module, a.context),
    module: a.module,
    context: a.context,
    relationship: a.relationship,
    origins: a.origins.map((o) => ({ module: o.module, dependency: o.dependency })),
  };
}

export const pathItem = (a: FindingAttribution): AttributionPathItem => ({ path: a.path, origins: a.origins });

export interface ModuleCounts {
  critical: number;
  high: number;
  medium: number;
  low: number;
  suppressed: number;
}

export const emptyCounts = (): ModuleCounts => ({ critical: 0, high: 0, medium: 0, low: 0, suppressed: 0 });

export function addToCounts(c: ModuleCounts, f: { severity: Severity; suppressed: boolean }): void {
  if (f.suppressed) c.suppressed++;
  else c[f.severity]++;
}

/**
 * Per-module counts in the affected view, from findings that carry their attributions (inline scans): for each
 * module, the findings whose attributions include it, each once. Aligned with `modules`.
 */
export function inlineModuleCounts(
  findings: ReadonlyArray<{ severity: Severity; suppressed: boolean; attributions: ReadonlyArray<{ module: string }> }>,
  modules: ReadonlyArray<{ path: string }>,
): ModuleCounts[] {
  const at = new Map(modules.map((m, i) => [m.path, i]));
  const counts = modules.map(emptyCounts);
  for (const f of findings) {
    const seen = new Set<number>();
    for (const a of f.attributions) {
      const i = at.get(a.module);
      if (i === undefined || seen.has(i)) continue;
      seen.add(i);
      addToCounts(counts[i], f);
    }
  }
  return counts;
}

/** One list of the scope index: the findings (list positions, ascending) in a view's module or team, with counts. */
export interface ScopeEntry {
  view: View;
  kind: 'module' | 'team';
  key: string;
  /** Flat pairs [finding position, attributions of it in this scope, ...], positions ascending. */
  pairs: Int32Array;
}

/**
 * The scope index of a paged scan, built at completion: for each view and each module or team, which findings are in
 * it and how many of their attributions. A findings page in any module/team scope is then one read of one list.
 * (Module and team together select the module's list when its team matches, else nothing.)
 */
export class ScopeIndexBuilder {
  private readonly lists = new Map<string, { view: View; kind: 'module' | 'team'; key: string; pairs: number[] }>();

  constructor(private readonly teamOf: TeamOf) {}

  /** The attributions of one package, shared by its findings (their list positions). */
  add(positions: readonly number[], attributions: readonly Attributed[]): void {
    const counts = new Map<string, { view: View; kind: 'module' | 'team'; key: string; n: number }>();
    const inc = (view: View, kind: 'module' | 'team', key: string) => {
      const id = `${view}\0${kind}\0${key}`;
      const c = counts.get(id);
      if (c) c.n++;
      else counts.set(id, { view, kind, key, n: 1 });
    };
    for (const a of attributions) {
      inc('affected', 'module', a.module);
      const team = this.teamOf(a.module);
      if (team != null) inc('affected', 'team', team);
      const modules = new Set(a.origins.map((o) => o.module));
      const teams = new Set<string>();
      for (const m of modules) {
        inc('introduced', 'module', m);
        const t = this.teamOf(m);
        if (t != null) teams.add(t);
      }
      for (const t of teams) inc('introduced', 'team', t);
    }
    for (const [id, c] of counts) {
      let list = this.lists.get(id);
      if (!list) this.lists.set(id, (list = { view: c.view, kind: c.kind, key: c.key, pairs: [] }));
      for (const p of positions) list.pairs.push(p, c.n);
    }
  }

  entries(): ScopeEntry[] {
    return [...this.lists.values()].map((l) => {
      const order = Array.from({ length: l.pairs.length / 2 }, (_, i) => i).sort(
        (a, b) => l.pairs[2 * a] - l.pairs[2 * b],
      );
      const pairs = new Int32Array(l.pairs.length);
      order.forEach((from, to) => {
        pairs[2 * to] = l.pairs[2 * from];
        pairs[2 * to + 1] = l.pairs[2 * from + 1];
      });
      return { view: l.view, kind: l.kind, key: l.key, pairs };
    });
  }
}

/** Per-module counts in the affected view from the scope index (paged scans); aligned with `modules`. */
export function indexedModuleCounts(
  entries: readonly ScopeEntry[],
  findings: ReadonlyArray<{ severity: Severity; suppressed: boolean }>,
  modules: ReadonlyArray<{ path: string }>,
): ModuleCounts[] {
  const affected = new Map(
    entries.filter((e) => e.view === 'affected' && e.kind === 'module').map((e) => [e.key, e.pairs]),
  );
  return modules.map((m) => {
    const c = emptyCounts();
    const pairs = affected.get(m.path);
    if (pairs) for (let i = 0; i < pairs.length; i += 2) addToCounts(c, findings[pairs[i]]);
    return c;
  });
}
