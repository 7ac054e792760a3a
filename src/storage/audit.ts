// The audit trail (additive): who did what to whom, when, in which request. Append-only.
import { newId } from '../domain/ids';
import type { AuditEventDoc } from './documents/service';
import type { Filter } from 'mongodb';
import type { Store } from './mongo';

/** Every event type of the trail, in the order the docs list them. */
export const AUDIT_TYPES = [
  'api_key.created',
  'api_key.revoked',
  'member.role_changed',
  'member.removed',
  'invitation.created',
  'invitation.accepted',
  'invitation.revoked',
  'webhook.created',
  'webhook.deleted',
  'session.created',
  'session.revoked',
  'registration_token.created',
  'registration_token.revoked',
  'host.registered',
  'host.reattested',
  'host.revoked',
  'enrollment_token.created',
  'enrollment_token.revoked',
  'gateway.enrolled',
  'gateway.approved',
  'gateway.revoked',
  'mcp_registry.entries_upserted',
  'mcp_registry.entry_deleted',
  'mcp_control_level.changed',
  'project.default_branch_changed',
  'alert.analysis_changed',
  'alert.analysis_deleted',
  'project.vex_imported',
  'triage_rule.created',
  'triage_rule.updated',
  'triage_rule.deleted',
  'scan.uploaded',
] as const;

export type AuditType = (typeof AUDIT_TYPES)[number];

export async function recordAudit(
  store: Store,
  e: Omit<AuditEventDoc, '_id' | 'at'>,
  now = new Date(),
): Promise<AuditEventDoc> {
  const doc: AuditEventDoc = { _id: newId('aud', now.getTime()), at: now, ...e };
  await store.c.auditEvents.insertOne(doc);
  return doc;
}

/** Several events at once (a bulk decision's), in the order given. */
export async function recordAudits(
  store: Store,
  events: Array<Omit<AuditEventDoc, '_id' | 'at'>>,
  now = new Date(),
): Promise<void> {
  if (!events.length) return;
  const t = now.getTime();
  await store.c.auditEvents.insertMany(
    events.map((e, i) => ({ _id: newId('aud', t + i), at: now, ...e })),
    { ordered: true },
  );
}

/** Newest first, after a cursor id; only events of one type, or of one actor (by email), when asked. */
export async function listAudit(
  store: Store,
  orgId: string,
  o: { beforeId?: string; limit: number; type?: AuditType; actorEmail?: string },
): Promise<AuditEventDoc[]> {
  const filter: Filter<AuditEventDoc> = { orgId };
  if (o.type) filter.type = o.type;
  if (o.actorEmail) filter['actor.email'] = o.actorEmail;
  if (o.beforeId) filter._id = { $lt: o.beforeId };
  return store.c.auditEvents.find(filter).sort({ _id: -1 }).limit(o.limit).toArray();
}
