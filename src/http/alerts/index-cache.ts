// An organization's alerts as the reads use them (src/domain/alerts/index.ts), kept per API process and validated on
// every read by one query: the organization's two versions, its alerts' (every move of a head changes it after its own
// write, src/storage/alerts.ts) and its triage's (every analysis written and every rule changed, src/storage/triage.ts
// and triage-rules.ts). The versions are read before what they stand for, so an index is kept under versions no newer
// than what it was built from: a later write changes a version and the next read takes it in. A triage change alone
// reads the analyses and rules again, not the alerts: with the rules unchanged, only the alerts whose analysis changed
// get a new view, put in place in the index's lists (a bulk decision over 50,000 alerts costs 500 views, not 50,000).
// An analysis's expiry takes effect at read: an index is kept only until the first expiry after it was built. Views
// join the intelligence feeds (KEV, EPSS): a new generation of either makes every view again from the records kept.
import { LRUCache } from 'lru-cache';
import { AlertIndex } from '../../domain/alerts/index';
import type { AlertRecord } from '../../domain/alerts/move';
import { viewOf } from '../../domain/alerts/query';
import { compileRule, ruleInForce, type CompiledRule, type TriageRule } from '../../domain/triage/rules';
import { orgAlertSets, orgAlertVersions, readStateAlerts } from '../../storage/alerts';
import type { AlertAnalysisDoc } from '../../storage/documents/triage';
import type { Store } from '../../storage/mongo';
import { orgAnalyses } from '../../storage/triage';
import { orgRules } from '../../storage/triage-rules';
import { currentIntel } from '../intel';

export interface OrgAlerts {
  index: AlertIndex;
  /** The analysis documents by alert id (their history events). */
  analyses: ReadonlyMap<string, AlertAnalysisDoc>;
}

interface Entry extends OrgAlerts {
  alertsVersion: string | null;
  triageVersion: string | null;
  /** The intelligence feeds' version its views joined (KEV and EPSS on every view). */
  intelVersion: string;
  /** The first expiry (of an analysis or an enforced rule) after the index was built: it is kept until then. */
  until: number;
  /** The rules in force it was built with. */
  rulesKey: string;
  /** The alert records it was built from, by id (a view taken again is made from its record as read, not rebuilt). */
  records: ReadonlyMap<string, AlertRecord>;
}

const indexes = new LRUCache<string, Entry>({ max: 64 });
const EMPTY: OrgAlerts = { index: new AlertIndex([]), analyses: new Map() };

/** The first expiry after `now` among analyses and enforced rules (Infinity: none). */
function firstExpiry(analyses: ReadonlyMap<string, AlertAnalysisDoc>, rules: readonly TriageRule[], now: Date): number {
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
  return until;
}

/** The builds under way, by organization and the versions they build under: requests side by side share one. */
const building = new Map<string, Promise<Entry>>();

export async function orgAlerts(store: Store, orgId: string, now = new Date()): Promise<OrgAlerts> {
  const [versions, intel] = await Promise.all([orgAlertVersions(store, orgId), currentIntel(store)]);
  if (versions.alerts === null && versions.triage === null) return EMPTY; // nothing moved or triaged here, ever
  const cached = indexes.get(orgId);
  const current = cached !== undefined && now.getTime() < cached.until;
  const sameIntel = current && cached.intelVersion === intel.version;
  if (current && sameIntel && cached.alertsVersion === versions.alerts && cached.triageVersion === versions.triage)
    return cached;
  // A cold organization asked for by several requests at once (the dashboard's first screen asks three) is built
  // once: the others wait for that build, made under the same versions (an index as current as theirs).
  const key = JSON.stringify([orgId, versions.alerts, versions.triage, intel.version, current ? cached.until : 0]);
  let p = building.get(key);
  if (!p) {
    p = build(store, orgId, now, versions, intel, current ? cached : undefined);
    building.set(key, p);
    void p.finally(() => building.delete(key)).catch(() => undefined);
  }
  return p;
}

async function build(
  store: Store,
  orgId: string,
  now: Date,
  versions: { alerts: string | null; triage: string | null },
  intel: Awaited<ReturnType<typeof currentIntel>>,
  cached: Entry | undefined,
): Promise<Entry> {
  const current = cached !== undefined;
  const sameIntel = current && cached.intelVersion === intel.version;
  const sameAlerts = current && cached.alertsVersion === versions.alerts;
  const [records, analyses, rules] = await Promise.all([
    sameAlerts ? null : orgAlertRecords(store, orgId),
    orgAnalyses(store, orgId),
    orgRules(store, orgId),
  ]);
  // Views depend on the rules in force only: a dry run created, changed or deleted changes no view.
  const inForce = rules.filter((r) => ruleInForce(r, now));
  const rulesKey = JSON.stringify(inForce);
  const compiled = inForce.map(compileRule);
  const view = (a: AlertRecord, c: readonly CompiledRule[]) =>
    viewOf(a, { analysis: analyses.get(a.id)?.analysis ?? null, rules: c, now, intel });
  let index: AlertIndex;
  if (sameAlerts && sameIntel && cached.rulesKey === rulesKey) {
    // Only analyses changed: the alerts whose newest revision is another than the index's get a new view.
    // (A revision is written once; its expiry is compared too, which operators and tests may set by hand.)
    const changed = new Set<string>();
    for (const [id, d] of analyses) {
      const had = cached.analyses.get(id);
      if (had?._id !== d._id || had.analysis?.expiresAt !== d.analysis?.expiresAt) changed.add(id);
    }
    for (const id of cached.analyses.keys()) if (!analyses.has(id)) changed.add(id);
    const views = [];
    for (const id of changed) {
      const record = cached.records.get(id);
      if (record) views.push(view(record, compiled));
    }
    index = cached.index.withViews(views);
  } else {
    const all = records ?? [...cached!.records.values()];
    index = new AlertIndex(all.map((a) => view(a, compiled)));
  }
  const entry: Entry = {
    alertsVersion: versions.alerts,
    triageVersion: versions.triage,
    intelVersion: intel.version,
    until: firstExpiry(analyses, rules, now),
    rulesKey,
    records: records ? new Map(records.map((a) => [a.id, a])) : cached!.records,
    index,
    analyses,
  };
  indexes.set(orgId, entry);
  return entry;
}

/** Every alert record of an organization, from the states its heads name (states are cached). */
async function orgAlertRecords(store: Store, orgId: string): Promise<AlertRecord[]> {
  const heads = await orgAlertSets(store, orgId);
  const lists = await Promise.all(heads.map((h) => readStateAlerts(store, h._id, h.seq)));
  return lists.flat();
}

/**
 * The organization's alert index for finding alerts by id when only their records matter (project, ecosystem,
 * installed versions), not their triage: the index kept is taken while it is current for the alerts' heads, even if
 * triage changed since (a bulk decision right after another need not wait for the index to take the first in).
 */
export async function orgAlertsByRecord(store: Store, orgId: string): Promise<AlertIndex> {
  const cached = indexes.get(orgId);
  if (cached) {
    const versions = await orgAlertVersions(store, orgId);
    if (versions.alerts === cached.alertsVersion) return cached.index;
  }
  return (await orgAlerts(store, orgId)).index;
}

/** The organization's alert index (see orgAlerts). */
export const orgAlertIndex = async (store: Store, orgId: string): Promise<AlertIndex> =>
  (await orgAlerts(store, orgId)).index;
