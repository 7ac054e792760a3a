// An organization's alerts indexed for the list (`GET /v1/alerts`): every alert in each sort order, and the alerts by
// project, package, advisory id, team, module, status and analysis state, so that a selective filter reads only its
// candidates instead of every alert of the organization (100 projects × 500 alerts: 50,000). Pure; built once per set
// of states and kept while they are current (src/http/alerts/index-cache.ts).
import { normalizedName } from '../../shared/package-names';
import { alertOrder, matchesQuery, type AlertQuery, type AlertSort, type AlertView } from './query';

type Key = 'project' | 'package' | 'advisory' | 'team' | 'module' | 'status' | 'analysis';

export class AlertIndex {
  private readonly byId: Map<string, AlertView>;
  private readonly orders = new Map<AlertSort, AlertView[]>();
  private readonly maps = new Map<Key, Map<string, AlertView[]>>();
  private readonly sortedLists = new Map<string, AlertView[]>();
  private readonly ecosystems: string[];

  constructor(readonly all: readonly AlertView[]) {
    this.byId = new Map(all.map((a) => [a.id, a]));
    this.ecosystems = [...new Set(all.map((a) => a.ecosystem))];
  }

  /**
   * This index with some alerts' views replaced (the same alerts, by id, read again after their triage changed): the
   * lists already sorted or grouped are carried over with the new views in place of the old (triage moves no alert in
   * any order, project, package, advisory, team, module or status), not built again; those by analysis are dropped.
   */
  withViews(changed: readonly AlertView[]): AlertIndex {
    const replace = new Map<AlertView, AlertView>();
    for (const v of changed) {
      const old = this.byId.get(v.id);
      if (old) replace.set(old, v);
    }
    if (!replace.size) return this;
    const swap = (list: readonly AlertView[]) => list.map((a) => replace.get(a) ?? a);
    const next = new AlertIndex(swap(this.all));
    for (const [sort, list] of this.orders) next.orders.set(sort, swap(list));
    for (const [key, m] of this.maps) {
      if (key === 'analysis') continue;
      next.maps.set(key, new Map([...m].map(([k, list]) => [k, swap(list)])));
    }
    if (this.tokens) next.tokens = this.tokens.map(([t, a]) => [t, replace.get(a) ?? a]);
    return next;
  }

  /** Every alert (merged ones included) in the order of `sort`. */
  sorted(sort: AlertSort): AlertView[] {
    let list = this.orders.get(sort);
    if (!list) this.orders.set(sort, (list = [...this.all].sort(alertOrder(sort))));
    return list;
  }

  /** An alert by id, following merges to the survivor. */
  get(id: string): AlertView | undefined {
    let a = this.byId.get(id);
    for (let hops = 0; a?.mergedInto && hops < 16; hops++) a = this.byId.get(a.mergedInto);
    return a;
  }

  /** An alert by id as stored (a merged one stays itself). */
  record(id: string): AlertView | undefined {
    return this.byId.get(id);
  }

  /** The alerts merged into `id`, directly or not. */
  mergedInto(id: string): string[] {
    const out: string[] = [];
    const want = new Set([id]);
    for (let grew = true; grew;) {
      grew = false;
      for (const a of this.map('status').get('merged') ?? [])
        if (a.mergedInto && want.has(a.mergedInto) && !want.has(a.id)) {
          want.add(a.id);
          out.push(a.id);
          grew = true;
        }
    }
    return out;
  }

  /** A page of the alerts matching `q`, in its sort, from `offset`; `more` when there are others after it. */
  page(q: AlertQuery, offset: number, limit: number): { alerts: AlertView[]; more: boolean } {
    const alerts: AlertView[] = [];
    let seen = 0;
    for (const a of this.candidates(q)) {
      if (!matchesQuery(a, q)) continue;
      if (seen++ < offset) continue;
      if (alerts.length === limit) return { alerts, more: true };
      alerts.push(a);
    }
    return { alerts, more: false };
  }

  /** The smallest list that holds every alert matching `q`, in the query's sort. */
  private candidates(q: AlertQuery): AlertView[] {
    const options: Array<[string, () => AlertView[]]> = [];
    if (q.advisory !== undefined) {
      const id = q.advisory.toUpperCase();
      options.push([`advisory:${id}`, () => this.map('advisory').get(id) ?? []]);
    }
    if (q.package !== undefined) {
      const keys = this.ecosystems.map((e) => `${e}\0${normalizedName(e, q.package!)}`);
      options.push([`package:${keys.join(',')}`, () => keys.flatMap((k) => this.map('package').get(k) ?? [])]);
    }
    if (q.projectIds)
      options.push([
        `project:${q.projectIds.join(',')}`,
        () => q.projectIds!.flatMap((p) => this.map('project').get(p) ?? []),
      ]);
    if (q.q !== undefined) {
      const prefix = q.q.toLowerCase();
      options.push([`q:${prefix}`, () => this.withPrefix(prefix)]);
    }
    if (q.team !== undefined) options.push([`team:${q.team}`, () => this.map('team').get(q.team!) ?? []]);
    if (q.module !== undefined) options.push([`module:${q.module}`, () => this.map('module').get(q.module!) ?? []]);
    if (q.status !== 'all') options.push([`status:${q.status}`, () => this.map('status').get(q.status) ?? []]);
    if (q.analysis !== undefined)
      options.push([`analysis:${q.analysis}`, () => this.map('analysis').get(q.analysis!) ?? []]);
    let best: [string, AlertView[]] | undefined;
    for (const [key, list] of options) {
      // A list sorted for an earlier query is reused as it is (computing some lists, a prefix's, costs a search).
      const l = this.sortedLists.get(`${key}\0${q.sort}`) ?? list();
      if (!best || l.length < best[1].length) best = [key, l];
    }
    // A selective list is sorted (once per list and sort); otherwise the whole presorted list is read.
    if (!best || best[1].length > this.all.length / 2) return this.sorted(q.sort);
    const cacheKey = `${best[0]}\0${q.sort}`;
    let sorted = this.sortedLists.get(cacheKey);
    if (!sorted) {
      sorted = [...best[1]].sort(alertOrder(q.sort));
      if (this.sortedLists.size > 4096) this.sortedLists.clear();
      this.sortedLists.set(cacheKey, sorted);
    }
    return sorted;
  }

  private tokens?: Array<[string, AlertView]>;

  /** The alerts whose package name or any advisory id starts with `prefix` (lower case): a binary search. */
  private withPrefix(prefix: string): AlertView[] {
    if (!this.tokens) {
      const tokens: Array<[string, AlertView]> = [];
      for (const a of this.all)
        for (const t of new Set([a.package, a.key, a.advisory, ...a.aliases].map((x) => x.toLowerCase())))
          tokens.push([t, a]);
      this.tokens = tokens.sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0));
    }
    const tokens = this.tokens;
    let lo = 0;
    let hi = tokens.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (tokens[mid][0] < prefix) lo = mid + 1;
      else hi = mid;
    }
    const out = new Set<AlertView>();
    for (let i = lo; i < tokens.length && tokens[i][0].startsWith(prefix); i++) out.add(tokens[i][1]);
    return [...out];
  }

  private map(key: Key): Map<string, AlertView[]> {
    let m = this.maps.get(key);
    if (m) return m;
    m = new Map();
    const add = (k: string, a: AlertView) => {
      const list = m!.get(k);
      if (list) list.push(a);
      else m!.set(k, [a]);
    };
    for (const a of this.all) {
      switch (key) {
        case 'project':
          add(a.projectId, a);
          break;
        case 'package':
          add(`${a.ecosystem}\0${a.key}`, a);
          break;
        case 'advisory':
          for (const id of new Set([a.advisory, ...a.aliases].map((x) => x.toUpperCase()))) add(id, a);
          break;
        case 'team':
          for (const t of a.teams) add(t, a);
          break;
        case 'module':
          for (const mod of a.modules) add(mod, a);
          break;
        case 'status':
          add(a.status, a);
          break;
        case 'analysis':
          // an expired analysis matches no analysis filter (matchesQuery): listed under its state all the same
          add(a.analysis?.state ?? 'none', a);
          break;
      }
    }
    this.maps.set(key, m);
    return m;
  }
}
