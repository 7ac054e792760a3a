// An organization's alerts as the reads use them (src/domain/alerts/index.ts), kept per API process and validated on
// every read: the heads of the organization's (project, ecosystem) pairs are read (one query over small documents),
// and the index is used while every head still names the state it was built from. States never change, so an index
// is never stale beyond the heads it was checked against.
import { LRUCache } from 'lru-cache';
import { AlertIndex } from '../../domain/alerts/index';
import { viewOf } from '../../domain/alerts/query';
import { orgAlertSets, readStateAlerts } from '../../storage/alerts';
import type { Store } from '../../storage/mongo';

const indexes = new LRUCache<string, { signature: string; index: AlertIndex }>({ max: 64 });

export async function orgAlertIndex(store: Store, orgId: string): Promise<AlertIndex> {
  const heads = await orgAlertSets(store, orgId);
  const signature = heads
    .map((h) => `${h._id}:${h.seq}`)
    .sort()
    .join(',');
  const cached = indexes.get(orgId);
  if (cached && cached.signature === signature) return cached.index;
  const lists = await Promise.all(heads.map((h) => readStateAlerts(store, h._id, h.seq)));
  const index = new AlertIndex(lists.flat().map(viewOf));
  indexes.set(orgId, { signature, index });
  return index;
}
