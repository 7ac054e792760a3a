// An organization's alerts as the reads use them, kept per API process and validated on every read: the heads of the
// organization's (project, ecosystem) pairs are read (one query over small documents), and the cached views are used
// while every head still names the state they were built from. States never change, so a view is never stale beyond
// the heads it was checked against.
import { LRUCache } from 'lru-cache';
import { alertOrder, viewOf, type AlertSort, type AlertView } from '../../domain/alerts/query';
import { orgAlertSets, readStateAlerts } from '../../storage/alerts';
import type { Store } from '../../storage/mongo';

interface OrgIndex {
  signature: string;
  all: AlertView[];
  byId: Map<string, AlertView>;
  sorted: Map<AlertSort, AlertView[]>;
}

const indexes = new LRUCache<string, OrgIndex>({ max: 64 });

export async function orgAlertIndex(store: Store, orgId: string) {
  const heads = await orgAlertSets(store, orgId);
  const signature = heads
    .map((h) => `${h._id}:${h.seq}`)
    .sort()
    .join(',');
  let index = indexes.get(orgId);
  if (!index || index.signature !== signature) {
    const lists = await Promise.all(heads.map((h) => readStateAlerts(store, h._id, h.seq)));
    const all = lists.flat().map(viewOf);
    index = { signature, all, byId: new Map(all.map((a) => [a.id, a])), sorted: new Map() };
    indexes.set(orgId, index);
  }
  const idx = index;
  return {
    /** Every alert (merged ones included) in the order of `sort`. */
    sorted(sort: AlertSort): AlertView[] {
      let list = idx.sorted.get(sort);
      if (!list) idx.sorted.set(sort, (list = [...idx.all].sort(alertOrder(sort))));
      return list;
    },
    /** An alert by id, following merges to the survivor. */
    get(id: string): AlertView | undefined {
      let a = idx.byId.get(id);
      for (let hops = 0; a?.mergedInto && hops < 16; hops++) a = idx.byId.get(a.mergedInto);
      return a;
    },
    /** The alerts merged into `id`, directly or not. */
    mergedInto(id: string): string[] {
      const out: string[] = [];
      const want = new Set([id]);
      let grew = true;
      while (grew) {
        grew = false;
        for (const a of idx.all)
          if (a.mergedInto && want.has(a.mergedInto) && !want.has(a.id)) {
            want.add(a.id);
            out.push(a.id);
            grew = true;
          }
      }
      return out;
    },
  };
}
