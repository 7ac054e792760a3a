// Triage rules as stored (`triageRules`, one document per rule, found by organization). Every change moves the
// organization's alerts version (src/storage/alerts.ts), so that each API process's alert index, which reads the
// rules live, is rebuilt on its next read. Before a change, the rules as they were are kept as the last reconciled
// ones when none are (src/storage/triage-marks.ts ensureBaseline): the background reconciliation after the change
// then tells the alerts' histories what the change did.
import { byAge, type TriageRule } from '../domain/triage/rules';
import { touchOrgTriage } from './alerts';
import type { TriageRuleDoc } from './documents/triage';
import type { Store } from './mongo';
import { ensureBaseline } from './triage-marks';

const ruleOf = (d: TriageRuleDoc): TriageRule => ({ id: d._id, ...d.rule });

/** The organization's rules, oldest first. */
export async function orgRules(store: Store, orgId: string): Promise<TriageRule[]> {
  const docs = await store.c.triageRules.find({ orgId }).toArray();
  return docs.map(ruleOf).sort(byAge);
}

export async function getRule(store: Store, orgId: string, id: string): Promise<TriageRule | null> {
  const d = await store.c.triageRules.findOne({ _id: id });
  return d && d.orgId === orgId ? ruleOf(d) : null;
}

export async function countRules(store: Store, orgId: string): Promise<number> {
  return store.c.triageRules.countDocuments({ orgId });
}

export async function insertRule(store: Store, orgId: string, rule: TriageRule): Promise<void> {
  await ensureBaseline(store, orgId, () => orgRules(store, orgId));
  const { id, ...rest } = rule;
  await store.c.triageRules.insertOne({ _id: id, orgId, rule: rest });
  await touchOrgTriage(store, orgId, `rule:${id}:${Date.now()}`);
}

export async function replaceRule(store: Store, orgId: string, rule: TriageRule): Promise<boolean> {
  await ensureBaseline(store, orgId, () => orgRules(store, orgId));
  const { id, ...rest } = rule;
  const r = await store.c.triageRules.replaceOne({ _id: id, orgId }, { orgId, rule: rest });
  if (r.matchedCount) await touchOrgTriage(store, orgId, `rule:${id}:${Date.now()}`);
  return r.matchedCount === 1;
}

export async function deleteRule(store: Store, orgId: string, id: string): Promise<boolean> {
  await ensureBaseline(store, orgId, () => orgRules(store, orgId));
  const r = await store.c.triageRules.deleteOne({ _id: id, orgId });
  if (r.deletedCount) await touchOrgTriage(store, orgId, `rule:${id}:${Date.now()}`);
  return r.deletedCount === 1;
}
