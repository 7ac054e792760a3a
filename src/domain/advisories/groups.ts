// Alias groups: advisories linked by `aliases`, in either direction and transitively, are one
// advisory for matching, de-duplication and suppression. Withdrawn advisories take no part: they never match.
import type { OsvAdvisory, Severity } from '../../shared/types';
import { groupCvss, groupSeverity } from './severity';
import type { Cvss } from '../../shared/types';

export interface AdvisoryGroup {
  /** Stable identity of the group: its sorted ids joined (used in finding ids). */
  key: string;
  /** Every id of the group (advisory ids and their aliases), sorted. */
  ids: string[];
  /** The finding's `cve`: the lowest CVE id, else the lowest GHSA id, else the lowest advisory id. */
  cve: string;
  severity: Severity;
  /** The CVSS vector that decided the severity, if any. */
  cvss: Cvss | null;
  publishedAt: string | null;
  summary: string;
}

class UnionFind {
  private parent = new Map<string, string>();
  find(x: string): string {
    let root = x;
    while (this.parent.has(root) && this.parent.get(root) !== root) root = this.parent.get(root)!;
    if (!this.parent.has(x)) this.parent.set(x, x);
    while (x !== root) {
      const next = this.parent.get(x)!;
      this.parent.set(x, root);
      x = next;
    }
    return root;
  }
  union(a: string, b: string): void {
    const ra = this.find(a);
    const rb = this.find(b);
    if (ra !== rb) this.parent.set(ra < rb ? rb : ra, ra < rb ? ra : rb);
  }
}

const CVE = /^CVE-(\d{4})-(\d+)$/;

export function compareCve(a: string, b: string): number {
  const ma = CVE.exec(a)!;
  const mb = CVE.exec(b)!;
  return Number(ma[1]) - Number(mb[1]) || Number(ma[2]) - Number(mb[2]);
}

export function chooseCve(ids: string[], advisoryIds: string[]): string {
  const cves = ids.filter((id) => CVE.test(id)).sort(compareCve);
  if (cves.length) return cves[0];
  const ghsa = ids.filter((id) => id.startsWith('GHSA-')).sort();
  if (ghsa.length) return ghsa[0];
  return [...advisoryIds].sort()[0];
}

function isoOrNull(s: string | undefined): string | null {
  if (!s) return null;
  const t = Date.parse(s);
  return Number.isFinite(t) ? new Date(t).toISOString() : null;
}

/** The advisory's summary, else the first sentence of its details, at most 300 characters. */
export function summaryOf(a: OsvAdvisory): string {
  // Cut by code points, never inside a surrogate pair.
  const cut = (text: string) => Array.from(text).slice(0, 300).join('');
  const s = (a.summary ?? '').trim();
  if (s) return cut(s);
  const d = (a.details ?? '').trim().replace(/\s+/g, ' ');
  const m = /^(.+?[.!?])(\s|$)/.exec(d);
  return cut(m ? m[1] : d);
}

/** Groups the non-withdrawn advisories; returns the groups and, per advisory id, its group's position. */
export function buildGroups(advisories: OsvAdvisory[]): { groups: AdvisoryGroup[]; groupOf: Map<string, number> } {
  const live = advisories.filter((a) => !a.withdrawn);
  const uf = new UnionFind();
  for (const a of live) {
    uf.find(a.id);
    for (const alias of a.aliases ?? []) if (typeof alias === 'string' && alias) uf.union(a.id, alias);
  }
  const members = new Map<string, { ids: Set<string>; advisories: OsvAdvisory[] }>();
  for (const a of live) {
    const root = uf.find(a.id);
    let m = members.get(root);
    if (!m) members.set(root, (m = { ids: new Set(), advisories: [] }));
    m.ids.add(a.id);
    for (const alias of a.aliases ?? []) if (typeof alias === 'string' && alias) m.ids.add(alias);
    m.advisories.push(a);
  }
  const groups: AdvisoryGroup[] = [];
  const groupOf = new Map<string, number>();
  for (const { ids, advisories: members_ } of members.values()) {
    const sortedIds = [...ids].sort();
    const own = members_.map((a) => a.id).sort();
    const cve = chooseCve(sortedIds, own);
    const byPreference = [...members_].sort((x, y) => (x.id === cve ? -1 : y.id === cve ? 1 : x.id < y.id ? -1 : 1));
    const published = members_
      .map((a) => isoOrNull(a.published))
      .filter((x): x is string => !!x)
      .sort();
    const n = groups.length;
    const cvss = groupCvss(members_);
    groups.push({
      key: sortedIds.join(','),
      ids: sortedIds,
      cve,
      severity: groupSeverity(members_, cvss),
      cvss,
      publishedAt: published[0] ?? null,
      summary: byPreference.map(summaryOf).find((s) => s) ?? '',
    });
    for (const a of members_) groupOf.set(a.id, n);
  }
  return { groups, groupOf };
}
