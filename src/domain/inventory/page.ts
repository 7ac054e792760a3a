// A page of a project's inventory: the union of one sorted item list per ecosystem, ordered by name, version,
// ecosystem, then id (code points), filtered, from a keyset position. Pure: the lists come from storage, cached.
import type { InventoryItem } from './compute';
import { compareCodePoints, normalizedName } from '../../shared/inventory-ids';

/** One ecosystem's items in list order (compareItems), with their names as the ecosystem compares them. */
export interface EcosystemItems {
  ecosystem: string;
  items: InventoryItem[];
  names: string[];
}

/** Where a page ends: the last item's [name, version, ecosystem, id]. */
export type ItemKey = [name: string, version: string, ecosystem: string, id: string];

export interface InventoryFilter {
  /** Exact, compared as each ecosystem compares names. */
  name?: string;
  direct?: boolean;
}

export interface InventoryPage {
  items: Array<{ ecosystem: string; item: InventoryItem }>;
  /** The position after the page's last item, or null when nothing matching follows. */
  next: ItemKey | null;
}

function compareKey(ecosystem: string, item: InventoryItem, key: ItemKey): number {
  return (
    compareCodePoints(item.name, key[0]) ||
    compareCodePoints(item.version, key[1]) ||
    compareCodePoints(ecosystem, key[2]) ||
    compareCodePoints(item.id, key[3])
  );
}

/** The first index of a list whose item sorts after `key` (the list is sorted, its ecosystem fixed). */
function firstAfter(list: EcosystemItems, key: ItemKey): number {
  let lo = 0;
  let hi = list.items.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (compareKey(list.ecosystem, list.items[mid], key) <= 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export function inventoryPage(
  lists: EcosystemItems[],
  filter: InventoryFilter,
  after: ItemKey | undefined,
  limit: number,
): InventoryPage {
  const wanted = lists.map((l) => (filter.name === undefined ? undefined : normalizedName(l.ecosystem, filter.name)));
  const matches = (k: number, i: number) => {
    const l = lists[k];
    return (
      (filter.direct === undefined || l.items[i].direct === filter.direct) &&
      (wanted[k] === undefined || l.names[i] === wanted[k])
    );
  };
  const heads = lists.map((l) => (after ? firstAfter(l, after) : 0));
  const advance = (k: number) => {
    while (heads[k] < lists[k].items.length && !matches(k, heads[k])) heads[k]++;
  };
  lists.forEach((_, k) => advance(k));
  const items: InventoryPage['items'] = [];
  let more = false;
  for (;;) {
    let best = -1;
    for (let k = 0; k < lists.length; k++) {
      if (heads[k] >= lists[k].items.length) continue;
      if (best < 0) best = k;
      else {
        const a = lists[k].items[heads[k]];
        const b = lists[best].items[heads[best]];
        if (compareKey(lists[k].ecosystem, a, [b.name, b.version, lists[best].ecosystem, b.id]) < 0) best = k;
      }
    }
    if (best < 0) break;
    if (items.length === limit) {
      more = true;
      break;
    }
    items.push({ ecosystem: lists[best].ecosystem, item: lists[best].items[heads[best]] });
    heads[best]++;
    advance(best);
  }
  const last = items[items.length - 1];
  return { items, next: more ? [last.item.name, last.item.version, last.ecosystem, last.item.id] : null };
}
