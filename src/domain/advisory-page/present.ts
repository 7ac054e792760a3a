// The page of one advisory (GET /v1/advisories/{id}; docs/where-used.md): the advisory as stored, and the
// organization's open alerts of it grouped by project. Pure.
//
// What is whose: id, summary, details, published, modified, withdrawn, affected and references are the shown
// advisory's own (one OSV record); aliases are every other id of its alias group (so each of the group's other records
// is named there); severity, cvss, kev and epss are the group's, as findings and alerts show them (the severity decided
// by the highest CVSS version present, src/domain/advisories/severity.ts).
import { groupSeverity, scoreVector } from '../advisories/severity';
import { summaryOf } from '../advisories/groups';
import type { AlertView } from '../alerts/query';
import { intelOf, type Intel } from '../intel/types';
import { compareCodePoints } from '../../shared/inventory-ids';
import type { Cvss, EpssEntry, KevEntry, OsvAdvisory, Severity } from '../../shared/types';
import type { CatalogEntry } from './catalog';

export interface RangeView {
  type: string;
  repo?: string;
  events: Array<Record<string, string>>;
}

export interface AffectedView {
  ecosystem: string;
  name: string;
  ranges: RangeView[];
  versions?: string[];
}

export interface AdvisoryView {
  id: string;
  aliases: string[];
  summary: string;
  details?: string;
  severity: Severity;
  cvss: Cvss[];
  kev: KevEntry | null;
  epss: EpssEntry | null;
  published: string | null;
  modified: string | null;
  withdrawn: string | null;
  affected: AffectedView[];
  references: Array<{ type: string; url: string }>;
}

const EVENT_KEYS = ['introduced', 'fixed', 'last_affected', 'limit'] as const;

/** An RFC 3339 time as ISO 8601 UTC; null when absent or unreadable. */
function iso(s: unknown): string | null {
  if (typeof s !== 'string' || !s) return null;
  const t = Date.parse(s);
  return Number.isFinite(t) ? new Date(t).toISOString() : null;
}

const isString = (x: unknown): x is string => typeof x === 'string';

/** Every CVSS vector of the advisories, scored, highest version first, then highest score, then vector; no repeats. */
export function cvssVectors(advisories: readonly OsvAdvisory[]): Cvss[] {
  const seen = new Map<string, { rank: number; cvss: Cvss }>();
  for (const a of advisories) {
    for (const s of Array.isArray(a.severity) ? a.severity : []) {
      const vector = typeof s?.score === 'string' ? s.score.trim() : '';
      if (!vector || seen.has(vector)) continue;
      const scored = scoreVector(String(s.type), vector);
      if (!scored || !Number.isFinite(scored[1])) continue;
      const [rank, score] = scored;
      const version: Cvss['version'] =
        rank === 3 ? '4.0' : rank === 2 ? (vector.startsWith('CVSS:3.0/') ? '3.0' : '3.1') : '2.0';
      seen.set(vector, { rank, cvss: { version, vector, score } });
    }
  }
  return [...seen.values()]
    .sort((x, y) => y.rank - x.rank || y.cvss.score - x.cvss.score || compareCodePoints(x.cvss.vector, y.cvss.vector))
    .map((x) => x.cvss);
}

function affectedOf(a: OsvAdvisory): AffectedView[] {
  const out: AffectedView[] = [];
  for (const entry of Array.isArray(a.affected) ? a.affected : []) {
    const pkg = entry?.package;
    if (!pkg || !isString(pkg.ecosystem) || !isString(pkg.name)) continue;
    const ranges: RangeView[] = [];
    for (const r of Array.isArray(entry.ranges) ? entry.ranges : []) {
      if (!r || !isString(r.type)) continue;
      const events: Array<Record<string, string>> = [];
      for (const e of Array.isArray(r.events) ? r.events : []) {
        const kept: Record<string, string> = {};
        for (const k of EVENT_KEYS) if (isString(e?.[k])) kept[k] = e[k]!;
        if (Object.keys(kept).length) events.push(kept);
      }
      const repo = (r as { repo?: unknown }).repo;
      ranges.push({ type: r.type, ...(isString(repo) ? { repo } : {}), events });
    }
    const versions = Array.isArray(entry.versions) ? entry.versions.filter(isString) : undefined;
    out.push({ ecosystem: pkg.ecosystem, name: pkg.name, ranges, ...(versions ? { versions } : {}) });
  }
  return out;
}

function referencesOf(a: OsvAdvisory): Array<{ type: string; url: string }> {
  const refs = (a as { references?: unknown }).references;
  const out: Array<{ type: string; url: string }> = [];
  for (const r of Array.isArray(refs) ? (refs as Array<Record<string, unknown>>) : []) {
    if (r && isString(r.url) && r.url) out.push({ type: isString(r.type) ? r.type : 'WEB', url: r.url });
  }
  return out;
}

/** The advisory an id named in the catalog, as the page shows it. */
export function advisoryView(found: CatalogEntry, intel: Intel): AdvisoryView {
  const a = found.advisory;
  const details = isString(a.details) && a.details.trim() ? a.details : undefined;
  return {
    id: a.id,
    aliases: found.ids.filter((id) => id !== a.id),
    summary: summaryOf(a),
    ...(details !== undefined ? { details } : {}),
    severity: groupSeverity(found.members),
    cvss: cvssVectors(found.members),
    ...intelOf(found.ids, intel),
    published: iso(a.published),
    modified: iso(a.modified),
    withdrawn: iso(a.withdrawn),
    affected: affectedOf(a),
    references: referencesOf(a),
  };
}

/**
 * An advisory no stored generation has, as the alerts naming it remember it (an advisory removed from the
 * database since, whose alerts are still open until the next re-match): the first alert by id speaks for it.
 */
export function advisoryFromAlerts(id: string, alerts: readonly AlertView[], intel: Intel): AdvisoryView {
  const a = [...alerts].sort((x, y) => compareCodePoints(x.id, y.id))[0];
  const upper = id.toUpperCase();
  const all = [...new Set([a.advisory, ...a.aliases])].sort();
  const shown = all.find((x) => x.toUpperCase() === upper) ?? id;
  return {
    id: shown,
    aliases: all.filter((x) => x !== shown),
    summary: a.summary,
    severity: a.severity,
    cvss: a.cvss ? [a.cvss] : [],
    ...intelOf(all, intel),
    published: a.publishedAt,
    modified: null,
    withdrawn: null,
    affected: [],
    references: [],
  };
}

/** A project's open alerts of the advisory. */
export interface ProjectAlerts {
  projectId: string;
  projectSlug: string;
  alerts: AlertView[];
}

/** Where a page of projects ends: the last project's [slug, id]. */
export type ProjectKey = [slug: string, projectId: string];

/**
 * The alerts grouped by project, projects by slug then id (code points), each project's alerts by ecosystem, package,
 * then id; a page of `limit` projects after `after`.
 */
export function alertsByProject(
  alerts: readonly AlertView[],
  slugOf: ReadonlyMap<string, string>,
  after: ProjectKey | undefined,
  limit: number,
): { projects: ProjectAlerts[]; next: ProjectKey | null } {
  const byProject = new Map<string, AlertView[]>();
  for (const a of alerts) {
    const list = byProject.get(a.projectId);
    if (list) list.push(a);
    else byProject.set(a.projectId, [a]);
  }
  const key = (p: ProjectAlerts): ProjectKey => [p.projectSlug, p.projectId];
  const cmpKey = (x: ProjectKey, y: ProjectKey) => compareCodePoints(x[0], y[0]) || compareCodePoints(x[1], y[1]);
  const all: ProjectAlerts[] = [...byProject].map(([projectId, list]) => ({
    projectId,
    projectSlug: slugOf.get(projectId) ?? projectId,
    alerts: list.sort(
      (x, y) =>
        compareCodePoints(x.ecosystem, y.ecosystem) || compareCodePoints(x.key, y.key) || compareCodePoints(x.id, y.id),
    ),
  }));
  const rest = all.filter((p) => !after || cmpKey(key(p), after) > 0).sort((x, y) => cmpKey(key(x), key(y)));
  const projects = rest.slice(0, limit);
  return { projects, next: rest.length > limit ? key(projects[projects.length - 1]) : null };
}
