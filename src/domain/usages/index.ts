// Where a package is used (GET /v1/dependencies/usages): an organization's packages, each with the projects whose
// latest completed scan of an ecosystem holds it. Built from the inventories of those scans (src/domain/inventory),
// one source per (project, ecosystem); names are keyed as each ecosystem compares them (src/shared/package-names.ts:
// npm lowercased, PyPI PEP 503, Maven group:artifact exact). Pure and immutable: a change of some sources gives a new
// index sharing everything else (src/http/usages/index-cache.ts keeps one per organization and validates it).
import type { InventoryItem } from '../inventory/compute';
import { compareCodePoints, normalizedName } from '../../shared/inventory-ids';

/** The inventory of one (project, ecosystem): its latest completed scan's items and their names as compared. */
export interface UsageSource {
  projectId: string;
  projectSlug: string;
  ecosystem: string;
  scanId: string;
  /** The scan's items in list order, and beside them their names as the ecosystem compares them. */
  items: readonly InventoryItem[];
  names: readonly string[];
}

/** One package of one source. */
export interface Usage {
  source: UsageSource;
  item: InventoryItem;
}

/** The order of usages, and a page's position: [project slug, ecosystem, version, project id, item id]. */
export type UsageKey = [slug: string, ecosystem: string, version: string, projectId: string, itemId: string];

export interface UsageQuery {
  /** A package name, compared as each ecosystem compares names. */
  name: string;
  /** Exact installed version, as the inventory holds it. */
  version?: string;
  ecosystem?: string;
  /** The projects in reach (a restricted key's); undefined: every project. */
  projectIds?: readonly string[];
  after?: UsageKey;
  limit: number;
}

export interface UsagePage {
  usages: Usage[];
  /** The position after the page's last usage, or null when nothing matching follows. */
  next: UsageKey | null;
}

const pairKey = (projectId: string, ecosystem: string) => `${projectId}\0${ecosystem}`;
const nameKey = (ecosystem: string, name: string) => `${ecosystem}\0${name}`;

export function usageKey(u: Usage): UsageKey {
  return [u.source.projectSlug, u.source.ecosystem, u.item.version, u.source.projectId, u.item.id];
}

function compareKeys(a: UsageKey, b: UsageKey): number {
  for (let i = 0; i < a.length; i++) {
    const c = compareCodePoints(a[i], b[i]);
    if (c) return c;
  }
  return 0;
}

export class UsageIndex {
  static readonly EMPTY = new UsageIndex(new Map(), new Map());

  private constructor(
    /** By (project, ecosystem). */
    private readonly sources: ReadonlyMap<string, UsageSource>,
    /** By (ecosystem, name as compared): the usages, in no particular order. */
    private readonly byName: ReadonlyMap<string, readonly Usage[]>,
  ) {}

  static of(sources: readonly UsageSource[]): UsageIndex {
    return UsageIndex.EMPTY.next(sources, () => false);
  }

  /** How many (project, ecosystem) sources it holds. */
  get size(): number {
    return this.sources.size;
  }

  /** The scan a (project, ecosystem) is indexed from, if any. */
  scanOf(projectId: string, ecosystem: string): string | undefined {
    return this.sources.get(pairKey(projectId, ecosystem))?.scanId;
  }

  /**
   * This index with `added` in place of the sources of their (project, ecosystem), and without the sources `keep`
   * refuses (a project's ecosystem whose latest completed scan is gone, say). Only the names of the sources that
   * change are touched; this index stays as it was (readers may still hold it).
   */
  next(given: readonly UsageSource[], keep: (projectId: string, ecosystem: string) => boolean): UsageIndex {
    const added = given.filter((s) => this.sources.get(pairKey(s.projectId, s.ecosystem)) !== s);
    const sources = new Map(this.sources);
    const gone: UsageSource[] = [];
    for (const s of this.sources.values()) if (!keep(s.projectId, s.ecosystem)) gone.push(s);
    for (const s of added) {
      const old = this.sources.get(pairKey(s.projectId, s.ecosystem));
      if (old) gone.push(old);
    }
    if (!gone.length && !added.length) return this;
    for (const s of gone) sources.delete(pairKey(s.projectId, s.ecosystem));
    for (const s of added) sources.set(pairKey(s.projectId, s.ecosystem), s);

    const byName = new Map(this.byName);
    // A list is copied the first time this change touches it, then changed in place.
    const own = new Set<string>();
    const writable = (key: string): Usage[] => {
      let list = byName.get(key) as Usage[] | undefined;
      if (!own.has(key)) {
        list = list ? [...list] : [];
        byName.set(key, list);
        own.add(key);
      }
      return list!;
    };
    const leaving = new Set(gone);
    for (const s of gone) {
      for (const name of new Set(s.names)) {
        const key = nameKey(s.ecosystem, name);
        byName.set(
          key,
          writable(key).filter((u) => !leaving.has(u.source)),
        );
      }
    }
    for (const s of added) {
      s.items.forEach((item, i) => writable(nameKey(s.ecosystem, s.names[i])).push({ source: s, item }));
    }
    for (const key of own) if (!byName.get(key)!.length) byName.delete(key); // names no source has any more
    return new UsageIndex(sources, byName);
  }

  /** The ecosystems some source has. */
  private ecosystems(): string[] {
    const out = new Set<string>();
    for (const s of this.sources.values()) out.add(s.ecosystem);
    return [...out];
  }

  /** A page of the usages of a package, in UsageKey order, after `q.after`. */
  query(q: UsageQuery): UsagePage {
    const reach = q.projectIds ? new Set(q.projectIds) : null;
    const found: Array<{ usage: Usage; key: UsageKey }> = [];
    for (const ecosystem of q.ecosystem !== undefined ? [q.ecosystem] : this.ecosystems()) {
      for (const usage of this.byName.get(nameKey(ecosystem, normalizedName(ecosystem, q.name))) ?? []) {
        if (q.version !== undefined && usage.item.version !== q.version) continue;
        if (reach && !reach.has(usage.source.projectId)) continue;
        const key = usageKey(usage);
        if (q.after && compareKeys(key, q.after) <= 0) continue;
        found.push({ usage, key });
      }
    }
    found.sort((a, b) => compareKeys(a.key, b.key));
    const page = found.slice(0, q.limit);
    return {
      usages: page.map((f) => f.usage),
      next: found.length > q.limit ? page[page.length - 1].key : null,
    };
  }
}
