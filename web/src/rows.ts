// The rows of the findings list: findings grouped by module (the consuming module in the affected view, the
// declaring module in the introduced view) or by introducing dependency, with a header row per group. A finding
// under several modules appears in each of their groups. Pure: tested through the browser tests.
import type { FindingFilters } from './filters';
import type { Finding } from './types';

export type Row =
  | { kind: 'group'; key: string; label: string; count: number; id: string }
  | { kind: 'finding'; key: string; finding: Finding; via: string };

const NO_MODULES = '(no module attribution)';
const PAGED = '(modules: open the finding)';

function inScope(module: string, f: FindingFilters, teamOf: (m: string) => string | null | undefined): boolean {
  if (f.module && module !== f.module) return false;
  if (f.team && teamOf(module) !== f.team) return false;
  return true;
}

/** The modules or introducing dependencies a finding is listed under in this view and scope. */
export function groupsOf(x: Finding, f: FindingFilters, teamOf: (m: string) => string | null | undefined): string[] {
  if (!x.attributions.length) {
    if (!x.attributionCount) return [NO_MODULES];
    // a paged scan's list items carry no attributions: with a module filter, that module is the group
    return [f.group === 'module' && f.module ? f.module : PAGED];
  }
  const out = new Set<string>();
  for (const a of x.attributions) {
    if (f.attribution === 'affected') {
      if (!inScope(a.module, f, teamOf)) continue;
      if (f.group === 'module') out.add(a.module);
      else for (const o of a.origins) out.add(o.dependency);
    } else {
      for (const o of a.origins) {
        if (!inScope(o.module, f, teamOf)) continue;
        out.add(f.group === 'module' ? o.module : o.dependency);
      }
    }
  }
  return out.size ? [...out] : [NO_MODULES];
}

/**
 * "introduced by :app via lib@1; :web via lib@1 (+2)": the origins, as text. Under a group, the origins that put the
 * finding there come first (a finding listed under :app says how :app brings it, whatever other modules do).
 */
export function viaText(x: Finding, group?: { key: string; f: FindingFilters }): string {
  if (!x.attributions.length) return x.attributionCount ? `${x.attributionCount} attributions` : x.path.join(' → ');
  const first = new Set<string>();
  const rest = new Set<string>();
  for (const a of x.attributions) {
    for (const o of a.origins) {
      const text = `${o.module} via ${o.dependency}`;
      const g = group?.f;
      const why = !g
        ? false
        : g.group === 'dependency'
          ? o.dependency === group.key
          : g.attribution === 'affected'
            ? a.module === group.key
            : o.module === group.key;
      (why ? first : rest).add(text);
    }
  }
  const list = [...first, ...[...rest].filter((t) => !first.has(t))];
  return `introduced by ${list.slice(0, 2).join('; ')}${list.length > 2 ? ` (+${list.length - 2})` : ''}`;
}

/** How many rows of findings the list shows (a finding is shown once under each of its groups). */
export function findingRows(rows: Row[]): number {
  let n = 0;
  for (const r of rows) if (r.kind === 'finding') n++;
  return n;
}

/**
 * What the list counts, in words, the same way in every grouping: the findings, and when a finding is shown under
 * several groups, the rows too, saying why the groups add up to more.
 */
export function listCountText(findings: number, rows: number, f: FindingFilters, complete: boolean): string {
  const head = `${findings} ${findings === 1 ? 'finding' : 'findings'}${complete ? '' : ' loaded so far'}`;
  if (f.group === 'none' || rows <= findings) return head;
  const under =
    f.group === 'module'
      ? f.attribution === 'affected'
        ? 'every module it affects'
        : 'every module that introduces it'
      : 'every dependency that introduces it';
  return `${head}, shown in ${rows} rows: a finding is listed under ${under}, so the groups add up to more`;
}

export function buildRows(
  findings: Finding[],
  f: FindingFilters,
  teamOf: (m: string) => string | null | undefined,
): Row[] {
  if (f.group === 'none') return findings.map((x) => ({ kind: 'finding', key: x.id, finding: x, via: viaText(x) }));
  const groups = new Map<string, Finding[]>();
  for (const x of findings) {
    for (const g of groupsOf(x, f, teamOf)) {
      const list = groups.get(g) ?? [];
      list.push(x);
      groups.set(g, list);
    }
  }
  const rows: Row[] = [];
  for (const [g, list] of groups) {
    const team = f.group === 'module' ? teamOf(g) : undefined;
    const pseudo = g === NO_MODULES || g === PAGED;
    const label =
      f.group !== 'module'
        ? `introduced through ${g}`
        : pseudo
          ? g
          : `${g} · ${team ? `team ${team}` : 'team unassigned'}`;
    rows.push({ kind: 'group', key: `g:${g}`, label, count: list.length, id: g });
    for (const x of list)
      rows.push({ kind: 'finding', key: `${g}\u0000${x.id}`, finding: x, via: viaText(x, { key: g, f }) });
  }
  return rows;
}
