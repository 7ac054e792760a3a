// A completed scan's findings as the reads see them (the findings list, the modules and attributions reads): in a
// module/team scope of a view, with each finding's attributions in that scope counted, for inline scans (attributions
// inside the findings) and paged ones (stored apart, storage/attributions.ts) alike. Everything here is derived from
// immutable results, so it is cached beside them: keyed by the cached findings array (storage/results.ts), it goes
// when that array leaves its byte-bounded cache.
import { LRUCache } from 'lru-cache';
import type { ScanModule } from '../../domain/attribution/module-order';
import {
  attributionInScope,
  hasScope,
  inlineModuleCounts,
  listItem,
  packageIdOf,
  type AttributionListItem,
  type ModuleCounts,
  type Scope,
  type TeamOf,
} from '../../domain/attribution/views';
import { notFound } from '../../domain/errors';
import type { Finding } from '../../shared/types';
import { readModuleCounts, readScope } from '../../storage/attributions';
import type { ScanDoc } from '../../storage/documents/scans';
import type { Store } from '../../storage/mongo';
import { readModules, readResults } from '../../storage/results';

/** A stored finding; paged scans' carry attributionCount (their attributions are stored apart). */
export type StoredFinding = Finding & { attributionCount?: number };

export const isPaged = (scan: ScanDoc): boolean => scan.attributionMode === 'paged';

/** The findings of a completed scan, in list order. */
export function findingsOf(store: Store, scan: ScanDoc): Promise<StoredFinding[]> {
  return readResults(store, scan._id, scan.resultChunks ?? 1);
}

/** The ordered module metadata of a completed v2 scan ([] for v1 and unfinished scans). */
export async function modulesOf(store: Store, scan: ScanDoc): Promise<ScanModule[]> {
  if (scan.status !== 'completed' || scan.schemaVersion !== 2) return [];
  return scan.modules ?? readModules(store, scan._id);
}

const teamMaps = new WeakMap<ScanModule[], Map<string, string | null>>();

export function teamOf(modules: ScanModule[]): TeamOf {
  let teams = teamMaps.get(modules);
  if (!teams) teamMaps.set(modules, (teams = new Map(modules.map((m) => [m.path, m.teamName ?? null]))));
  const map = teams;
  return (m) => map.get(m);
}

const positions = new WeakMap<StoredFinding[], Map<string, number>>();

/** A finding of a completed scan by id, or 404 not_found. */
export async function findingById(store: Store, scan: ScanDoc, id: string): Promise<StoredFinding> {
  const all = await findingsOf(store, scan);
  let at = positions.get(all);
  if (!at) positions.set(all, (at = new Map(all.map((f, i) => [f.id, i]))));
  const i = at.get(id);
  if (i === undefined) throw notFound(`finding ${id}`);
  return all[i];
}

const inlineItems = new WeakMap<StoredFinding, AttributionListItem[]>();

/** An inline finding's attributions as the attributions read lists them (ids computed once per finding). */
export function inlineListItems(f: StoredFinding): AttributionListItem[] {
  let items = inlineItems.get(f);
  if (!items) {
    const pkg = packageIdOf(f);
    inlineItems.set(f, (items = f.attributions.map((a) => listItem(pkg, a))));
  }
  return items;
}

export interface ScopedFindings {
  findings: StoredFinding[];
  /** Attributions of each finding (aligned) in the view and scope. */
  attributionCounts: number[];
}

const SCOPES_PER_SCAN = 16;
const scopeCache = new WeakMap<StoredFinding[], LRUCache<string, ScopedFindings>>();

async function computeScope(
  store: Store,
  scan: ScanDoc,
  all: StoredFinding[],
  scope: Scope,
  modules: ScanModule[],
): Promise<ScopedFindings> {
  const team = teamOf(modules);
  if (!isPaged(scan)) {
    if (!hasScope(scope)) return { findings: all, attributionCounts: all.map((f) => f.attributions.length) };
    const findings: StoredFinding[] = [];
    const attributionCounts: number[] = [];
    for (const f of all) {
      let n = 0;
      for (const a of f.attributions) if (attributionInScope(a, scope, team)) n++;
      if (n === 0) continue;
      findings.push(f);
      attributionCounts.push(n);
    }
    return { findings, attributionCounts };
  }
  if (!hasScope(scope)) return { findings: all, attributionCounts: all.map((f) => f.attributionCount ?? 0) };
  // Module and team together: the module's list when its team is that team, else nothing.
  if (scope.module !== undefined && scope.team !== undefined && (team(scope.module) ?? null) !== scope.team)
    return { findings: [], attributionCounts: [] };
  const pairs =
    scope.module !== undefined
      ? await readScope(store, scan._id, scope.view, 'module', scope.module)
      : await readScope(store, scan._id, scope.view, 'team', scope.team!);
  const findings: StoredFinding[] = [];
  const attributionCounts: number[] = [];
  for (let i = 0; i < pairs.length; i += 2) {
    findings.push(all[pairs[i]]);
    attributionCounts.push(pairs[i + 1]);
  }
  return { findings, attributionCounts };
}

/**
 * The findings of a completed scan in a view's module/team scope (all of them without one), in list order, with
 * their attributions in that scope counted. v1 scans have no modules: any module or team selects nothing.
 */
export async function findingsInScope(store: Store, scan: ScanDoc, scope: Scope): Promise<ScopedFindings> {
  const [all, modules] = await Promise.all([findingsOf(store, scan), modulesOf(store, scan)]);
  let ofScan = scopeCache.get(all);
  if (!ofScan) scopeCache.set(all, (ofScan = new LRUCache<string, ScopedFindings>({ max: SCOPES_PER_SCAN })));
  const key = hasScope(scope) ? JSON.stringify([scope.view, scope.module ?? null, scope.team ?? null]) : '*';
  let hit = ofScan.get(key);
  if (!hit) {
    hit = await computeScope(store, scan, all, scope, modules);
    ofScan.set(key, hit);
  }
  return hit;
}

const inlineCounts = new WeakMap<StoredFinding[], ModuleCounts[]>();

/** Per-module counts of a completed v2 scan in the affected view, aligned with `modules`. */
export async function moduleCountsOf(store: Store, scan: ScanDoc, modules: ScanModule[]): Promise<ModuleCounts[]> {
  if (isPaged(scan)) {
    const stored = await readModuleCounts(store, scan._id);
    if (stored && stored.length === modules.length) return stored;
    throw new Error(`module counts of ${scan._id} missing`);
  }
  const all = await findingsOf(store, scan);
  let counts = inlineCounts.get(all);
  if (!counts) inlineCounts.set(all, (counts = inlineModuleCounts(all, modules)));
  return counts;
}
