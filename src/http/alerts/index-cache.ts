// An organization's alerts as the reads use them (src/domain/alerts/index.ts), kept per API process and validated on
// every read by one read by _id: the organization's alerts version, which every move of a head changes after the head
// (src/storage/alerts.ts). The version is read before the heads, so an index is kept under a version no newer than
// the heads it was built from: a later move changes the version and the next read builds again. States never change.
import { LRUCache } from 'lru-cache';
import { AlertIndex } from '../../domain/alerts/index';
import { viewOf } from '../../domain/alerts/query';
import { orgAlertSets, orgAlertsVersion, readStateAlerts } from '../../storage/alerts';
import type { Store } from '../../storage/mongo';

const indexes = new LRUCache<string, { version: string; index: AlertIndex }>({ max: 64 });
const EMPTY = new AlertIndex([]);

export async function orgAlertIndex(store: Store, orgId: string): Promise<AlertIndex> {
  const version = await orgAlertsVersion(store, orgId);
  if (version === null) return EMPTY; // no alert ever moved in this organization
  const cached = indexes.get(orgId);
  if (cached && cached.version === version) return cached.index;
  const heads = await orgAlertSets(store, orgId);
  const lists = await Promise.all(heads.map((h) => readStateAlerts(store, h._id, h.seq)));
  const index = new AlertIndex(lists.flat().map(viewOf));
  indexes.set(orgId, { version, index });
  return index;
}
