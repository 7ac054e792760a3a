// An organization's alerts as the reads use them (src/domain/alerts/index.ts), kept per API process and validated on
// every read by one read by _id: the organization's alerts version, which every move of a head and every analysis
// write changes after its own write (src/storage/alerts.ts, src/storage/triage.ts). The version is read before the
// heads and analyses, so an index is kept under a version no newer than what it was built from: a later write changes
// the version and the next read builds again. An analysis's expiry takes effect at read: an index is kept only until
// the first expiry after it was built.
import { LRUCache } from 'lru-cache';
import { AlertIndex } from '../../domain/alerts/index';
import { viewOf } from '../../domain/alerts/query';
import { orgAlertSets, orgAlertsVersion, readStateAlerts } from '../../storage/alerts';
import type { AlertAnalysisDoc } from '../../storage/documents/triage';
import type { Store } from '../../storage/mongo';
import { orgAnalyses } from '../../storage/triage';
import { orgRules } from '../../storage/triage-rules';
import { compileRule, ruleInForce } from '../../domain/triage/rules';

export interface OrgAlerts {
  index: AlertIndex;
  /** The analysis documents by alert id (their history events). */
  analyses: ReadonlyMap<string, AlertAnalysisDoc>;
}

const indexes = new LRUCache<string, OrgAlerts & { version: string; until: number }>({ max: 64 });
const EMPTY: OrgAlerts = { index: new AlertIndex([]), analyses: new Map() };

export async function orgAlerts(store: Store, orgId: string, now = new Date()): Promise<OrgAlerts> {
  const version = await orgAlertsVersion(store, orgId);
  if (version === null) return EMPTY; // no alert ever moved or was triaged in this organization
  const cached = indexes.get(orgId);
  if (cached && cached.version === version && now.getTime() < cached.until) return cached;
  const [heads, analyses, rules] = await Promise.all([
    orgAlertSets(store, orgId),
    orgAnalyses(store, orgId),
    orgRules(store, orgId),
  ]);
  const lists = await Promise.all(heads.map((h) => readStateAlerts(store, h._id, h.seq)));
  let until = Infinity;
  for (const d of analyses.values()) {
    const t = d.analysis?.expiresAt ? Date.parse(d.analysis.expiresAt) : Infinity;
    if (t > now.getTime() && t < until) until = t;
  }
  // A rule's expiry, like an analysis's, ends the index's time.
  for (const r of rules) {
    const t = r.mode === 'enforce' && r.expiresAt ? Date.parse(r.expiresAt) : Infinity;
    if (t > now.getTime() && t < until) until = t;
  }
  const compiled = rules.filter((r) => ruleInForce(r, now)).map(compileRule);
  const index = new AlertIndex(
    lists.flat().map((a) => viewOf(a, { analysis: analyses.get(a.id)?.analysis ?? null, rules: compiled, now })),
  );
  const entry = { version, until, index, analyses };
  indexes.set(orgId, entry);
  return entry;
}

/** The organization's alert index (see orgAlerts). */
export const orgAlertIndex = async (store: Store, orgId: string): Promise<AlertIndex> =>
  (await orgAlerts(store, orgId)).index;
