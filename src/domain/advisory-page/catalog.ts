// The advisories of one generation, found by any id (GET /v1/advisories/{id}): an advisory's own id or any id of its
// alias group, case-insensitive. Groups are those of matching (src/domain/advisories/groups.ts buildGroups: advisories
// linked by aliases, withdrawn ones apart). Built once per generation and kept by the API process; each advisory is
// kept as its JSON text (about the size of the generation's JSON) and parsed when asked for. Pure.
import { buildGroups } from '../advisories/groups';
import type { OsvAdvisory } from '../../shared/types';

/** What an id names: the advisory shown, the members of its alias group (it among them) and every id of the group. */
export interface CatalogEntry {
  advisory: OsvAdvisory;
  members: OsvAdvisory[];
  /** Every id of the group (advisory ids and aliases), sorted; a withdrawn advisory's: its id and aliases. */
  ids: string[];
}

interface Group {
  ids: string[];
  /** The group's display id (as findings' cve). */
  cve: string;
  /** Its advisories' ids, sorted. */
  members: string[];
}

const aliasesOf = (a: OsvAdvisory): string[] =>
  (Array.isArray(a.aliases) ? a.aliases : []).filter((x): x is string => typeof x === 'string' && x !== '');

export class AdvisoryCatalog {
  /** Each advisory's JSON, by its own id. */
  private readonly text = new Map<string, string>();
  /** Upper-cased own id → own id. */
  private readonly own = new Map<string, string>();
  private readonly groups: Group[] = [];
  /** Upper-cased id of a group (own ids and aliases) → its group. */
  private readonly groupOfId = new Map<string, number>();
  /** Own id of a live advisory → its group. */
  private readonly groupOfAdvisory: Map<string, number>;
  /** Upper-cased alias of a withdrawn advisory (not in any group) → the advisory's id. */
  private readonly withdrawnAlias = new Map<string, string>();

  constructor(advisories: readonly OsvAdvisory[]) {
    for (const a of advisories) {
      if (typeof a?.id !== 'string' || !a.id) continue;
      this.text.set(a.id, JSON.stringify(a));
      const upper = a.id.toUpperCase();
      if (!this.own.has(upper)) this.own.set(upper, a.id);
    }
    // Groups from the ids and aliases alone (the severity buildGroups computes from them is not used).
    const { groups, groupOf } = buildGroups(
      advisories
        .filter((a) => typeof a?.id === 'string' && a.id && !a.withdrawn)
        .map((a) => ({ id: a.id, aliases: aliasesOf(a) })),
    );
    this.groupOfAdvisory = groupOf;
    const members = groups.map(() => [] as string[]);
    for (const [id, n] of groupOf) members[n].push(id);
    groups.forEach((g, n) => {
      this.groups.push({ ids: g.ids, cve: g.cve, members: members[n].sort() });
      for (const id of g.ids) {
        const upper = id.toUpperCase();
        if (!this.groupOfId.has(upper)) this.groupOfId.set(upper, n);
      }
    });
    for (const a of advisories) {
      if (typeof a?.id !== 'string' || !a.id || !a.withdrawn) continue;
      for (const alias of aliasesOf(a)) {
        const upper = alias.toUpperCase();
        if (!this.withdrawnAlias.has(upper)) this.withdrawnAlias.set(upper, a.id);
      }
    }
  }

  /** How many advisories it holds. */
  get size(): number {
    return this.text.size;
  }

  private parse(id: string): OsvAdvisory {
    return JSON.parse(this.text.get(id)!) as OsvAdvisory;
  }

  private ofGroup(n: number, shown: string): CatalogEntry {
    const g = this.groups[n];
    const members = g.members.map((id) => this.parse(id));
    return { advisory: members.find((a) => a.id === shown)!, members, ids: g.ids };
  }

  private alone(id: string): CatalogEntry {
    const a = this.parse(id);
    return { advisory: a, members: [a], ids: [...new Set([a.id, ...aliasesOf(a)])].sort() };
  }

  /**
   * The advisory an id names, case-insensitive: the advisory of that id (withdrawn or not) with its group; else the
   * group holding the id as an alias, shown by its display advisory (the one whose id is the group's display id, else
   * the lowest id); else a withdrawn advisory listing it as an alias; else null.
   */
  find(id: string): CatalogEntry | null {
    const upper = id.toUpperCase();
    const own = this.own.get(upper);
    if (own !== undefined) {
      const n = this.groupOfAdvisory.get(own);
      return n === undefined ? this.alone(own) : this.ofGroup(n, own);
    }
    const n = this.groupOfId.get(upper);
    if (n !== undefined) {
      const g = this.groups[n];
      return this.ofGroup(n, g.members.includes(g.cve) ? g.cve : g.members[0]);
    }
    const withdrawn = this.withdrawnAlias.get(upper);
    return withdrawn === undefined ? null : this.alone(withdrawn);
  }
}
